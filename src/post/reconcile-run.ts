import pMap from 'p-map';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import type { AppLock } from '../dialect/app-lock.ts';
import { UsageError } from '../errors/usage-error.ts';
import { createHttpAgent } from '../http/create-http-agent.ts';
import { requestJson } from '../http/request-json.ts';
import { sendWithRetry } from '../http/send-with-retry.ts';
import { requeueForRepair, updateLedgerItem } from '../ledger/ledger-outcomes.ts';
import { selectPostedItems } from '../ledger/ledger-reports.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { readPostedRows } from './read-posted-rows.ts';
import { RemoteDuplicatesError } from './remote-duplicates-error.ts';
import { resolveDestination } from './resolve-destination.ts';
import { joinUrl } from '../http/join-url.ts';

/** What `--force-reconcile` found at one destination. */
export interface ReconcileCounts {
  readonly destination: string;
  readonly checked: number;
  readonly present: number;
  /** No record with that reference at the destination (or, without `lookup.exists`, none of this version). */
  readonly missing: number;
  /** Records with that reference exist, but none of this content version (told by `lookup.exists`). */
  readonly different: number;
  /**
   * More than one record for the reference (told by `lookup.references`): the item went to
   * `review` with their references (see `RemoteDuplicatesError`).
   */
  readonly duplicated: number;
}

/**
 * `--force-reconcile`: asks each destination, by its look-up, about every record the ledger says
 * is posted for this run key. A missing or different record's item goes back to `pending` under a
 * new repair idempotency key (see `requeueForRepair`), so the normal post stage repairs it
 * through the destination's strategy. A record the destination holds more than once (see
 * `DestinationLookup.references`) goes to `review` with every remote reference: an operator
 * keeps one.
 * @throws UsageError when a destination has no `lookup`.
 */
export async function reconcileRun(
  ctx: { db: Database; config: ResolvedConfig; now: () => string },
  pipeline: PipelineDefinition,
  run: { runKey: string; lock: AppLock; log: Logger },
): Promise<ReconcileCounts[]> {
  const { db } = ctx;
  const results: ReconcileCounts[] = [];
  for (const definition of pipeline.destinations) {
    const destination = resolveDestination(ctx.config, definition);
    const lookup = definition.lookup;
    if (!lookup) throw new UsageError(`--force-reconcile needs a lookup on destination "${definition.name}"`);
    const log = run.log.child({ stage: 'reconcile', destination: destination.name });
    await run.lock.assertHeld();
    const items = await selectPostedItems(db, { jobName: pipeline.name, runKey: run.runKey, destination: destination.name });
    const rows = await readPostedRows(db, pipeline, items);
    const counts = { checked: 0, present: 0, missing: 0, different: 0, duplicated: 0 };
    const agent = createHttpAgent(destination.http);
    try {
      await pMap(
        items.filter((item) => rows.has(item.id)),
        async (item) => {
          const row = rows.get(item.id)!;
          const response = await sendWithRetry(() => requestJson(agent, { method: 'GET', url: joinUrl(destination.url, lookup.path(row)), headers: destination.headers }), { settings: destination.http.retry });
          counts.checked += 1;
          const duplicates = RemoteDuplicatesError.of(lookup, response.body, row);
          if (duplicates) {
            counts.duplicated += 1;
            log.warn({ reference: item.sourceReference, remoteDuplicates: duplicates.references }, `${item.sourceReference}: ${duplicates.message}`);
            await updateLedgerItem(db, item.id, { status: 'review', nowIso: ctx.now(), lastError: duplicates.message, remoteDuplicates: duplicates.references });
            return;
          }
          if (lookup.find(response.body, row) !== undefined) {
            counts.present += 1;
            return;
          }
          const kind = lookup.exists?.(response.body, row) ? 'different' : 'missing';
          counts[kind] += 1;
          log.warn({ reference: item.sourceReference, found: kind }, `${item.sourceReference} is ${kind} at ${destination.name}: sending it again`);
          await requeueForRepair(db, item, { reason: `reconcile: ${kind} at the destination`, nowIso: ctx.now() });
        },
        { concurrency: destination.http.concurrency },
      );
    } finally {
      await agent.close();
    }
    log.info(counts, `reconciled ${counts.checked} posted record(s): ${counts.present} present, ${counts.missing} missing, ${counts.different} different, ${counts.duplicated} duplicated`);
    results.push({ destination: destination.name, ...counts });
  }
  return results;
}
