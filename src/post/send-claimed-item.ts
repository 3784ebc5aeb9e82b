import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { Database } from '../db/database.ts';
import { markItemSending } from '../ledger/ledger-claims.ts';
import type { LedgerOutcomeWriter } from '../ledger/ledger-outcome-writer.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { Progress } from '../progress/progress.ts';
import type { ClaimedItem } from './batch-claimer.ts';
import { ClaimLostError } from './claim-lost-error.ts';
import { postItem, type PostItemOutcome } from './post-item.ts';
import type { PostTally } from './post-tally.ts';
import type { PostWorker } from './post-worker.ts';
import { toPostedRow } from './read-posted-rows.ts';
import type { ResolvedDestination } from './resolved-destination.ts';
import { redactSecrets } from '../text/redact-secrets.ts';

/** What {@link sendClaimedItem} sends with, and where it records what happened: one destination's pass. */
export interface ClaimedItemContext {
  readonly db: Database;
  readonly pipeline: PipelineDefinition;
  readonly destination: ResolvedDestination;
  readonly agent: Dispatcher;
  /** The claiming process: it proves its right to send before every request (`PostWorker.assertMaySend`). */
  readonly worker: PostWorker;
  readonly writer: LedgerOutcomeWriter;
  readonly tally: PostTally;
  readonly log: Logger;
  readonly progress: Progress | undefined;
  readonly now: () => string;
  /** Injected in tests so long retry waits do not sleep. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Aborted on a polite stop: no retry starts after it (see `PostItemContext.stop`). */
  readonly stop?: AbortSignal;
}

/**
 * Sends one claimed item by its destination's strategy (see `postItem`) and records how it
 * ended in the ledger, which ends its claim; the outcome is written only while the item still
 * carries this claim's token. An item whose record changed again since it was enqueued is
 * recorded `superseded`, not sent. An item whose claim ran out before a request
 * (`ClaimLostError`) is left to the process that owns it now: nothing is recorded.
 * @throws LockLostError (the run) when its app lock is no longer valid before a request, the
 *   outcome writer's errors, and database errors.
 */
export async function sendClaimedItem(claimed: ClaimedItem, ctx: ClaimedItemContext): Promise<void> {
  try {
    await sendAndRecord(claimed, ctx);
  } finally {
    claimed.lease.finishedOne();
  }
}

async function sendAndRecord({ item, row, remoteReference, lease }: ClaimedItem, ctx: ClaimedItemContext): Promise<void> {
  const { db, tally, log, worker } = ctx;
  if (!row) {
    tally.superseded();
    await ctx.writer.record(item.id, { status: 'superseded', nowIso: ctx.now(), claimToken: lease.token });
    return;
  }
  let outcome: PostItemOutcome;
  try {
    outcome = await postItem(item, toPostedRow(db, ctx.pipeline, item, row, remoteReference), {
      destination: ctx.destination,
      agent: ctx.agent,
      markSending: async () => {
        if (!(await markItemSending(db, { id: item.id, token: lease.token, nowIso: ctx.now() }))) throw new ClaimLostError(item.id);
      },
      assertMaySend: async () => {
        await worker.assertMaySend();
        // Last, and without a round trip: only the request's own dispatch comes after it.
        lease.assertLive(item.id);
      },
      assertLiveAtWrite: () => {
        worker.assertMaySendNow();
        lease.assertLive(item.id);
      },
      onFirstSend: () => tally.sent(),
      // `attempt` on a run's lines is its job_runs attempt: the request's own is `requestAttempt`.
      onRetry: ({ attempt, failure, delayMs }) => log.debug({ reference: item.sourceReference, requestAttempt: attempt, reason: failure.reason, delayMs }, 'retrying'),
      ...(ctx.sleep ? { sleep: ctx.sleep } : {}),
      ...(ctx.stop ? { stop: ctx.stop } : {}),
    });
  } catch (error) {
    if (!(error instanceof ClaimLostError)) throw error;
    tally.lost();
    log.warn({ reference: item.sourceReference }, error.message);
    return;
  }
  tally.finished(outcome);
  ctx.progress?.update(tally.finishedItems, tally.finishedItems);
  if (outcome.status !== 'posted') {
    log.warn({ reference: item.sourceReference, status: outcome.status, attempts: outcome.attempts, error: outcome.error }, `item ${item.sourceReference} ${outcome.status}`);
  }
  await ctx.writer.record(item.id, {
    status: outcome.status,
    nowIso: ctx.now(),
    attempts: item.attempts + outcome.attempts,
    failureKind: outcome.failureKind ?? null,
    lastHttpStatus: outcome.httpStatus ?? null,
    lastError: outcome.error === undefined ? null : redactSecrets(outcome.error),
    claimToken: lease.token,
    ...(outcome.requestMayLand ? { requestMayLand: true } : {}),
    ...(outcome.remoteDuplicates ? { remoteDuplicates: outcome.remoteDuplicates } : {}),
    ...(outcome.remoteReference === undefined ? {} : { remoteReference: outcome.remoteReference }),
  });
}
