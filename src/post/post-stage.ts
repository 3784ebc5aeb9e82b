import pMap from 'p-map';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import type { AppLock } from '../dialect/app-lock.ts';
import { createHttpAgent } from '../http/create-http-agent.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { SILENT_PROGRESS, type ProgressFactory } from '../progress/progress.ts';
import { moveInterruptedToReview, postableItemsQuery, selectPostableItems, updateLedgerItem } from './ledger-queries.ts';
import { LedgerOutcomeWriter } from './ledger-outcome-writer.ts';
import { postItem } from './post-item.ts';
import { readPostedRows } from './read-posted-rows.ts';
import { resolveDestination } from './resolve-destination.ts';

/** Ledger items read per page; memory stays flat in the run's size. */
const PAGE_ITEMS = 500;

/** Counts of one destination's post stage in one run. */
export interface PostCounts {
  readonly destination: string;
  readonly strategy: string;
  /** Items sent (or looked up) in this attempt. */
  readonly sent: number;
  readonly posted: number;
  /** check-before-create: already at the destination, nothing created. */
  readonly found: number;
  readonly failed: number;
  readonly review: number;
  readonly superseded: number;
  /** Attempts made (a check-before-create attempt is a look-up plus, when absent, a create). */
  readonly attempts: number;
  readonly ms: number;
}

/**
 * Sends a run's pending (and transiently failed) ledger items to each destination, a page at a
 * time with bounded concurrency, proving the app lock before each page. Items left `sending` by
 * a crash go to `review` first.
 */
export async function postStage(
  ctx: { db: Database; config: ResolvedConfig; now: () => string; sleep?: (ms: number) => Promise<void>; progress?: ProgressFactory },
  pipeline: PipelineDefinition,
  run: { runKey: string; lock: AppLock; log: Logger },
): Promise<PostCounts[]> {
  const { db } = ctx;
  const results: PostCounts[] = [];
  for (const definition of pipeline.destinations) {
    const destination = resolveDestination(ctx.config, definition);
    const log = run.log.child({ stage: 'post', destination: destination.name });
    const started = performance.now();
    const agent = createHttpAgent(destination.http);
    const counts = { sent: 0, posted: 0, found: 0, failed: 0, review: 0, superseded: 0, attempts: 0 };
    let stopProgress = (): void => undefined;
    try {
      const scope = { jobName: pipeline.name, runKey: run.runKey, destination: destination.name };
      if (destination.strategy === 'mark-before-send') {
        await run.lock.assertHeld();
        const interrupted = await moveInterruptedToReview(db, { ...scope, nowIso: ctx.now() });
        if (interrupted > 0) log.warn({ interrupted }, `${interrupted} item(s) were interrupted while sending: moved to review`);
        counts.review += interrupted;
      }
      const total = Number(((await postableItemsQuery(db, scope).count({ n: '*' })) as { n: number | string }[])[0]!.n);
      const progress = (ctx.progress ?? SILENT_PROGRESS)(`post ${destination.name}`, total, 'items');
      stopProgress = () => progress.stop();
      let done = 0;
      let afterId = 0;
      // mark-before-send writes each change at once; the others may batch (see LedgerOutcomeWriter).
      const writer = destination.strategy === 'mark-before-send' ? undefined : new LedgerOutcomeWriter(db);
      const record = (id: number, change: Parameters<typeof updateLedgerItem>[2]): Promise<void> =>
        writer ? writer.add(id, change) : updateLedgerItem(db, id, change);
      for (;;) {
        await run.lock.assertHeld();
        const items = await selectPostableItems(db, { ...scope, afterId, limit: PAGE_ITEMS });
        if (items.length === 0) break;
        afterId = items.at(-1)!.id;
        const rows = await readPostedRows(db, pipeline, items);
        await pMap(
          items,
          async (item) => {
            const row = rows.get(item.id);
            if (!row) {
              counts.superseded += 1;
              await record(item.id, { status: 'superseded', nowIso: ctx.now() });
              return;
            }
            counts.sent += 1;
            const outcome = await postItem(item, row, {
              destination,
              agent,
              markSending: () => updateLedgerItem(db, item.id, { status: 'sending', nowIso: ctx.now() }),
              onRetry: ({ attempt, failure, delayMs }) =>
                log.debug({ reference: item.sourceReference, attempt, reason: failure.reason, delayMs }, 'retrying'),
              ...(ctx.sleep ? { sleep: ctx.sleep } : {}),
            });
            progress.update(++done, done);
            counts.attempts += outcome.attempts;
            counts[outcome.status] += 1;
            if (outcome.found) counts.found += 1;
            if (outcome.status !== 'posted') {
              log.warn({ reference: item.sourceReference, status: outcome.status, attempts: outcome.attempts, error: outcome.error }, `item ${item.sourceReference} ${outcome.status}`);
            }
            await record(item.id, {
              status: outcome.status,
              nowIso: ctx.now(),
              attempts: item.attempts + outcome.attempts,
              failureKind: outcome.failureKind ?? null,
              lastHttpStatus: outcome.httpStatus ?? null,
              lastError: outcome.error ?? null,
              ...(outcome.remoteReference === undefined ? {} : { remoteReference: outcome.remoteReference }),
            });
          },
          { concurrency: destination.http.concurrency },
        );
        await writer?.flush();
      }
    } finally {
      stopProgress();
      await agent.close();
    }
    const logged = { strategy: destination.strategy, ...counts, ms: Math.round(performance.now() - started) };
    log.info(logged, `posted ${counts.posted} of ${counts.sent} to ${destination.name} (${counts.failed} failed, ${counts.review} in review)`);
    results.push({ destination: destination.name, ...logged });
  }
  return results;
}
