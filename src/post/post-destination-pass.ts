import pMap from 'p-map';
import { createHttpAgent } from '../http/create-http-agent.ts';
import { moveInterruptedToReview } from '../ledger/ledger-claims.ts';
import { LedgerOutcomeWriter } from '../ledger/ledger-outcome-writer.ts';
import { postableItemsQuery } from '../ledger/ledger-reports.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { SILENT_PROGRESS, type Progress } from '../progress/progress.ts';
import { BatchClaimer } from './batch-claimer.ts';
import { HeldClaims } from './held-claims.ts';
import type { DestinationDefinition } from '../destination/destination-definition.ts';
import type { PostCounts } from './post-counts.ts';
import type { PostPass, PostStageContext } from './post-stage-context.ts';
import { PostTally } from './post-tally.ts';
import { resolveDestination } from './resolve-destination.ts';
import { sendClaimedItem } from './send-claimed-item.ts';
import { withClaimRenewal } from './with-claim-renewal.ts';

/**
 * One pass of a process over a run's items at one destination: claims batches of the run's
 * `pending` items (see `BatchClaimer`) and sends them with the destination's concurrency (see
 * `sendClaimedItem`) until nothing is left to claim, renewing the process's claims meanwhile
 * (see `withClaimRenewal`). Items under another process's claim are claimed once that claim has
 * lapsed and the destination's takeover grace has passed. Under a strategy that `marksSending`
 * (mark-before-send), items left `sending` with no live claim (their process died, or stopped,
 * mid-request) go to `review` before every claim, and each outcome is written at once; under the
 * others outcomes are written in batches (see `LedgerOutcomeWriter`). A polite stop (`ctx.stop`)
 * ends the claims and the retries; the requests in flight finish and their outcomes are written.
 * Logs one line with the pass's counts.
 * @returns the pass's counts.
 * @throws whatever `run.worker.assertMayPost` and `assertMaySend` throw (the run: LockLostError),
 *   and database errors.
 */
export async function postDestinationPass(ctx: PostStageContext, pipeline: PipelineDefinition, definition: DestinationDefinition, run: PostPass): Promise<PostCounts> {
  const { db, config } = ctx;
  const destination = resolveDestination(config, definition);
  const log = run.log.child({ stage: 'post', destination: destination.name });
  const started = performance.now();
  const scope = { jobName: pipeline.name, runKey: run.runKey, destination: destination.name };
  const marksSending = destination.strategy.marksSending;
  const tally = new PostTally();
  const agent = createHttpAgent(destination.http);
  let progress: Progress | undefined;
  try {
    // Read only: every claim below first proves the process may post and moves interrupted items.
    const total = Number(((await postableItemsQuery(db, scope).count({ n: '*' })) as { n: number | string }[])[0]!.n);
    // A later pass that finds nothing to do shows no bar.
    progress = total > 0 ? (ctx.progress ?? SILENT_PROGRESS)(`post ${destination.name}`, total, 'items') : undefined;
    const writer = new LedgerOutcomeWriter(db, {
      batched: !marksSending,
      onRefused: (items, id) => {
        tally.refused(items);
        log.warn({ refused: items, ...(id === undefined ? {} : { item: id }) }, `${items} outcome(s) not recorded: the item(s) were no longer under this process's claim (moved to review while it was stopped, or taken over); the ledger keeps what they are now`);
      },
    });
    const held = new HeldClaims();
    const graceMs = destination.takeoverGraceMs;
    const claimer = new BatchClaimer({
      db,
      pipeline,
      scope,
      worker: run.worker,
      concurrency: destination.http.concurrency,
      claimTtlMs: config.claimTtlMs,
      graceMs,
      held,
      ...(ctx.stop ? { stop: ctx.stop } : {}),
      ...(marksSending
        ? {
            beforeClaim: async () => {
              const interrupted = await moveInterruptedToReview(db, { ...scope, graceMs, nowIso: ctx.now() });
              if (interrupted > 0) log.warn({ interrupted }, `${interrupted} item(s) were interrupted while sending: moved to review`);
              tally.interrupted(interrupted);
            },
          }
        : {}),
    });
    const item = { db, pipeline, destination, agent, worker: run.worker, writer, tally, log, progress, now: ctx.now, ...(ctx.sleep ? { sleep: ctx.sleep } : {}), ...(ctx.stop ? { stop: ctx.stop } : {}) };
    const renewal = { db, worker: run.worker.name, claimTtlMs: config.claimTtlMs, held, log, serialize: <T>(task: () => Promise<T>) => writer.serialize(task) };
    await withClaimRenewal(renewal, async () => {
      await pMap(claimer.items(), (claimed) => sendClaimedItem(claimed, item), { concurrency: destination.http.concurrency });
      await writer.flush();
    });
  } finally {
    progress?.stop();
    await agent.close();
  }
  const counts = tally.counts(destination.name, destination.strategy.name, Math.round(performance.now() - started));
  const { destination: _name, ...logged } = counts;
  // One info line per destination and process; a later pass that found nothing says so at debug.
  log[tally.idle && !run.firstPass ? 'debug' : 'info'](logged, `posted ${counts.posted} to ${destination.name}: ${counts.created} created, ${counts.updated} updated, ${counts.found} found already there (${counts.sent} sent, ${counts.failed} failed, ${counts.review} in review)`);
  return counts;
}
