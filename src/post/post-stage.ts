import pMap from 'p-map';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import { createHttpAgent } from '../http/create-http-agent.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { SILENT_PROGRESS, type ProgressFactory } from '../progress/progress.ts';
import { ClaimLostError } from './claim-lost-error.ts';
import type { LedgerItem } from './ledger-item.ts';
import { claimLedgerItems, markItemSending, moveInterruptedToReview, postableItemsQuery, renewClaims, updateLedgerItem, type LedgerChange } from './ledger-queries.ts';
import { LedgerOutcomeWriter } from './ledger-outcome-writer.ts';
import { postItem } from './post-item.ts';
import type { PostWorker } from './post-worker.ts';
import { readTargetRows, toPostedRow, type TargetRow } from './read-posted-rows.ts';
import { resolveDestination } from './resolve-destination.ts';

/** Counts of one destination's post stage in one run (or one worker's share of it). */
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
  /** Items whose claim lapsed before a mark-before-send request went out: another process owns them. */
  readonly lost: number;
  /** Attempts made (a check-before-create attempt is a look-up plus, when absent, a create). */
  readonly attempts: number;
  readonly ms: number;
}

type Tally = { -readonly [K in Exclude<keyof PostCounts, 'destination' | 'strategy' | 'ms'>]: number };

/**
 * Items claimed per claim: enough that claiming is a small share of the work, few enough that
 * workers sharing a run split it finely. Scales with the destination's concurrency.
 */
export function claimBatchSize(concurrency: number): number {
  return Math.min(500, Math.max(16, concurrency * 8));
}

/** Adds two post counts of the same destination (for example two passes of one process). */
export function addPostCounts(a: PostCounts, b: PostCounts): PostCounts {
  return {
    destination: a.destination,
    strategy: a.strategy,
    sent: a.sent + b.sent,
    posted: a.posted + b.posted,
    found: a.found + b.found,
    failed: a.failed + b.failed,
    review: a.review + b.review,
    superseded: a.superseded + b.superseded,
    lost: a.lost + b.lost,
    attempts: a.attempts + b.attempts,
    ms: a.ms + b.ms,
  };
}

/**
 * One pass of a process (the run, or an `idem work` worker) over a run's post stage: for each
 * destination, claims batches of the run's `pending` ledger items (see `claimLedgerItems`) and
 * sends them with bounded concurrency until nothing is left to claim. The next batch is claimed
 * while the current one is still being sent, so concurrency never drains between batches. Under
 * mark-before-send, items left `sending` with no live claim (their process died mid-request) go
 * to `review` first. The process's claims are renewed every third of `config.claimTtlMs` while
 * the pass runs; every outcome releases its item's claim.
 *
 * Items another process holds under a live claim are not waited for here: see `finishPostedRun`.
 * @throws whatever `worker.assertMayPost` throws (the run: LockLostError), and database errors.
 */
export async function postStage(
  ctx: { db: Database; config: ResolvedConfig; now: () => string; sleep?: (ms: number) => Promise<void>; progress?: ProgressFactory },
  pipeline: PipelineDefinition,
  run: { runKey: string; log: Logger; worker: PostWorker; firstPass?: boolean },
): Promise<PostCounts[]> {
  const { db, config } = ctx;
  const { worker } = run;
  const results: PostCounts[] = [];
  // The outcome writer of the destination being posted, if it batches: renewals queue behind it.
  let writer: LedgerOutcomeWriter | undefined;
  const renew = (): void => {
    const expiresIso = new Date(Date.parse(ctx.now()) + config.claimTtlMs).toISOString();
    const task = (): Promise<number> => renewClaims(db, { worker: worker.name, expiresIso });
    (writer ? writer.serialize(task) : task()).catch((error: Error) => run.log.warn({ err: error }, 'claims not renewed'));
  };
  const renewTimer = setInterval(renew, Math.max(10, Math.floor(config.claimTtlMs / 3)));
  renewTimer.unref();
  try {
    for (const definition of pipeline.destinations) {
      const destination = resolveDestination(config, definition);
      const log = run.log.child({ stage: 'post', destination: destination.name });
      const started = performance.now();
      const agent = createHttpAgent(destination.http);
      const counts: Tally = { sent: 0, posted: 0, found: 0, failed: 0, review: 0, superseded: 0, lost: 0, attempts: 0 };
      let stopProgress = (): void => undefined;
      try {
        const scope = { jobName: pipeline.name, runKey: run.runKey, destination: destination.name };
        const markBeforeSend = destination.strategy === 'mark-before-send';
        const interruptedToReview = async (): Promise<void> => {
          if (!markBeforeSend) return;
          const interrupted = await moveInterruptedToReview(db, { ...scope, nowIso: ctx.now() });
          if (interrupted > 0) log.warn({ interrupted }, `${interrupted} item(s) were interrupted while sending: moved to review`);
          counts.review += interrupted;
        };
        // Read only: every claim below first proves the process may post and moves interrupted items.
        const total = Number(((await postableItemsQuery(db, scope).count({ n: '*' })) as { n: number | string }[])[0]!.n);
        // A later pass that finds nothing to do shows no bar.
        const progress = total > 0 ? (ctx.progress ?? SILENT_PROGRESS)(`post ${destination.name}`, total, 'items') : undefined;
        stopProgress = () => progress?.stop();
        let done = 0;
        // mark-before-send writes each change at once; the others may batch (see LedgerOutcomeWriter).
        writer = markBeforeSend ? undefined : new LedgerOutcomeWriter(db);
        const batched = writer;
        const record = async (id: number, change: LedgerChange): Promise<void> => {
          const claimed = { ...change, claimedBy: worker.name };
          if (batched) batched.add(id, claimed);
          else await updateLedgerItem(db, id, claimed);
        };
        const concurrency = destination.http.concurrency;
        const limit = claimBatchSize(concurrency);
        // Claims go on after the last id claimed; once that finds nothing, one more from the start
        // picks up what lapsed claims or requeues freed behind it.
        let afterId = 0;
        const claimBatch = async (): Promise<{ item: LedgerItem; row: TargetRow | undefined }[]> => {
          await worker.assertMayPost();
          await interruptedToReview();
          const claim = (from: number): Promise<LedgerItem[]> =>
            claimLedgerItems(db, { ...scope, worker: worker.name, limit, nowIso: ctx.now(), ttlMs: config.claimTtlMs, afterId: from });
          let items = await claim(afterId);
          if (items.length === 0 && afterId > 0) items = await claim(0);
          afterId = items.at(-1)?.id ?? afterId;
          const rows = await readTargetRows(db, pipeline, items);
          return items.map((item) => ({ item, row: rows.get(item.id) }));
        };
        // Claims the next batch while the current one is still being sent, once half of it is
        // handed out: a claim and its rows take a few round trips, longer on a loaded database
        // than `concurrency` items take to send, so the sending slots never drain between batches.
        const prefetchAt = Math.max(concurrency, Math.floor(limit / 2));
        async function* claimed(): AsyncGenerator<{ item: LedgerItem; row: TargetRow | undefined }> {
          let next: Promise<{ item: LedgerItem; row: TargetRow | undefined }[]> | undefined = claimBatch();
          let buffer: { item: LedgerItem; row: TargetRow | undefined }[] = [];
          for (;;) {
            if (buffer.length === 0) {
              buffer = await next!;
              next = undefined;
              if (buffer.length === 0) return;
            }
            if (next === undefined && buffer.length <= prefetchAt) {
              next = claimBatch();
              // Handled where it is awaited; this only keeps an early failure from being "unhandled".
              next.catch(() => undefined);
            }
            yield buffer.shift()!;
          }
        }
        await pMap(
          claimed(),
          async ({ item, row }) => {
            if (!row) {
              counts.superseded += 1;
              await record(item.id, { status: 'superseded', nowIso: ctx.now() });
              return;
            }
            counts.sent += 1;
            let outcome;
            try {
              outcome = await postItem(item, toPostedRow(db, pipeline, item, row), {
                destination,
                agent,
                markSending: async () => {
                  if (!(await markItemSending(db, { id: item.id, worker: worker.name, nowIso: ctx.now() }))) throw new ClaimLostError(item.id);
                },
                onRetry: ({ attempt, failure, delayMs }) =>
                  log.debug({ reference: item.sourceReference, attempt, reason: failure.reason, delayMs }, 'retrying'),
                ...(ctx.sleep ? { sleep: ctx.sleep } : {}),
              });
            } catch (error) {
              if (!(error instanceof ClaimLostError)) throw error;
              counts.sent -= 1;
              counts.lost += 1;
              log.warn({ reference: item.sourceReference }, error.message);
              return;
            }
            progress?.update(++done, done);
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
          { concurrency },
        );
        await writer?.flush();
      } finally {
        stopProgress();
        await agent.close();
      }
      const logged = { strategy: destination.strategy, ...counts, ms: Math.round(performance.now() - started) };
      // One info line per destination and process; a later pass that found nothing says so at debug.
      const idle = counts.sent + counts.superseded + counts.review + counts.lost === 0;
      log[idle && !run.firstPass ? 'debug' : 'info'](logged, `posted ${counts.posted} of ${counts.sent} to ${destination.name} (${counts.failed} failed, ${counts.review} in review)`);
      results.push({ destination: destination.name, ...logged });
    }
  } finally {
    clearInterval(renewTimer);
  }
  return results;
}
