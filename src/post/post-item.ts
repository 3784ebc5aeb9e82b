import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { HttpFailure } from '../http/classify-http-failure.ts';
import { HttpRequestFailedError } from '../http/http-request-failed-error.ts';
import { joinUrl } from '../http/join-url.ts';
import { requestJson } from '../http/request-json.ts';
import { sendWithRetry, type RetryInfo } from '../http/send-with-retry.ts';
import { LockLostError } from '../errors/lock-lost-error.ts';
import type { LedgerItem, LedgerStatus } from '../ledger/ledger-item.ts';
import { ClaimLostError } from './claim-lost-error.ts';
import { RemoteDuplicatesError } from './remote-duplicates-error.ts';
import type { PostedRow } from '../destination/destination-definition.ts';
import type { StrategySender } from '../destination/post-strategy-module.ts';
import { requestMayHaveApplied } from '../destination/request-may-have-applied.ts';
import type { ResolvedDestination } from './resolved-destination.ts';

/** How one item's post ended: the ledger change to record. */
export interface PostItemOutcome {
  readonly status: Extract<LedgerStatus, 'posted' | 'failed' | 'review'>;
  /** Attempts made now (added to the item's earlier attempts). */
  readonly attempts: number;
  readonly remoteReference?: string;
  readonly failureKind?: 'transient' | 'terminal';
  readonly httpStatus?: number;
  readonly error?: string;
  /**
   * How a `posted` item got there: its create (`POST`) or its update (`PUT`, `PATCH`) was
   * answered, or the strategy's look-up found the record already there, with nothing more sent;
   * a deletion's request was answered (`deleted`), or the record it deletes was never posted
   * there, and nothing was sent (`unsent`).
   */
  readonly postedBy?: 'created' | 'updated' | 'found' | 'deleted' | 'unsent';
  /**
   * Failed, and a create it sent may still be applied by the destination (see
   * `LedgerChange.requestMayLand`; under check-before-create).
   */
  readonly requestMayLand?: boolean;
  /**
   * In `review` because a look-up found the destination holding more than one record for the
   * row: their remote references (see `RemoteDuplicatesError`).
   */
  readonly remoteDuplicates?: readonly string[];
}

/** What {@link postItem} needs besides the item. */
export interface PostItemContext {
  readonly destination: ResolvedDestination;
  readonly agent: Dispatcher;
  /**
   * Marks the item `sending` and commits it (for a strategy that `marksSending`, before every request).
   * @throws ClaimLostError when this process no longer holds the item's claim.
   */
  readonly markSending: () => Promise<void>;
  /**
   * Proves that this process may still send the item, immediately before every create request:
   * its claim, and the run's app lock (without a round trip while it can).
   * @throws ClaimLostError, LockLostError
   */
  readonly assertMaySend: () => Promise<void>;
  /**
   * Proves it once more, without a round trip, at the last moment: right before the request's
   * bytes are written to the socket, after any wait for a connection (see `checkBeforeWrite`). A
   * process stopped after `assertMaySend` then sends nothing once its claim, or its lock's lease,
   * has run out.
   * @throws ClaimLostError, LockLostError
   */
  readonly assertLiveAtWrite?: () => void;
  /** Called once, just before the item's first create or update request goes out (not for a look-up). */
  readonly onFirstSend?: () => void;
  readonly onRetry?: (info: RetryInfo) => void;
  /** Injected in tests so long waits do not sleep. */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Aborted on a polite stop: a request in flight finishes, but no retry starts (a wait for one
   * ends at once); the item ends as the strategy ends it once its retries are spent (a transient
   * failure is `failed`, and the next attempt sends it again). @defaultValue none
   */
  readonly stop?: AbortSignal;
}

function describe(failure: HttpFailure, cause: unknown): string {
  const body = (cause as { body?: string }).body;
  return body ? `${failure.reason}: ${body}` : failure.reason;
}

/** The process lost its right to send the item: not an HTTP failure, and not for the ledger. */
function rightToSendLost(error: unknown): ClaimLostError | LockLostError | undefined {
  const cause = error instanceof HttpRequestFailedError ? error.cause : error;
  return cause instanceof ClaimLostError || cause instanceof LockLostError ? cause : undefined;
}

/**
 * Sends one ledger item by its destination's strategy (see `PostStrategyModule`), with retries:
 * the sending, retrying and counting shared by every strategy. Each attempt does what the
 * strategy sends first (`ItemPost.beforeSend`: a look-up, a `sending` mark), then, unless that
 * found the record, proves that this process may still send (`assertMaySend`) and sends the
 * definition's request for the row: a create, or an update of the record `row.remoteReference`
 * names (the strategies treat both alike). A failed request is read by `requestMayHaveApplied`
 * and handed to the strategy, which decides whether to try again and, once not, whether the item
 * is `failed` or goes to `review`. A look-up that finds the destination holding the record more
 * than once (`RemoteDuplicatesError`) ends the item in `review` with their references, nothing
 * sent. Never throws for an HTTP failure: every ending is an outcome for the ledger.
 * @throws ClaimLostError or LockLostError from `markSending` or `assertMaySend`: the item belongs
 *   to another process now (or may soon), and nothing more is sent; and a database error of
 *   `markSending` as it is (the run's failure, not the item's).
 */
export async function postItem(item: LedgerItem, row: PostedRow, ctx: PostItemContext): Promise<PostItemOutcome> {
  const { destination, agent } = ctx;
  const { definition } = destination;
  // A deletion of a record never posted here has nothing to delete.
  if (row.deleted && (row.remoteReference === undefined || definition.delete === undefined)) return { status: 'posted', attempts: 0, postedBy: 'unsent' };
  const strategy = destination.strategy.startItem({ idempotencyKey: item.idempotencyKey, definition, settleDelayMs: destination.settleDelayMs });
  const request = row.deleted ? definition.delete!(row) : definition.request(row);
  const headers = { ...destination.headers, ...strategy.headers, ...request.headers };
  let attempts = 0;
  let found = false;
  let sent = false;
  let ledgerFailure: { readonly error: unknown } | undefined;

  const sender: StrategySender = {
    lookUp: async () => {
      const lookup = definition.lookup!;
      const response = await requestJson(agent, { method: 'GET', url: joinUrl(destination.url, lookup.path(row)), headers: destination.headers });
      const duplicates = RemoteDuplicatesError.of(lookup, response.body, row);
      if (duplicates) throw duplicates;
      if (!row.deleted) return lookup.find(response.body, row);
      // A deletion is applied once the destination no longer holds the record.
      const held = lookup.exists ? lookup.exists(response.body, row) : lookup.find(response.body, row) !== undefined;
      return held ? undefined : row.remoteReference;
    },
    // The mark is the ledger's write, not the destination's answer: a database error there is
    // the run's failure (a lost connection, another session's lock), never the item's.
    markSending: async () => {
      try {
        await ctx.markSending();
      } catch (error) {
        if (!(error instanceof ClaimLostError)) ledgerFailure = { error };
        throw error;
      }
    },
    sleep: ctx.sleep ?? delay,
  };
  const attempt = async (): Promise<string> => {
    attempts += 1;
    const existing = await strategy.beforeSend(sender);
    if (existing !== undefined) {
      found = true;
      return existing;
    }
    await ctx.assertMaySend();
    if (!sent) {
      sent = true;
      ctx.onFirstSend?.();
    }
    try {
      const response = await requestJson(agent, { method: request.method, url: joinUrl(destination.url, request.path), headers, body: request.body, ...(ctx.assertLiveAtWrite ? { beforeWrite: ctx.assertLiveAtWrite } : {}) });
      // A deletion's answer may have no body: the record keeps the reference it was posted under.
      return row.deleted ? row.remoteReference! : definition.remoteReference(response.body, row);
    } catch (error) {
      strategy.sendFailed({ error, mayHaveApplied: requestMayHaveApplied(definition, error) });
      throw error;
    }
  };

  try {
    const remoteReference = await sendWithRetry(attempt, {
      settings: destination.http.retry,
      shouldRetry: (failure) => !ctx.stop?.aborted && strategy.retries(failure),
      ...(ctx.onRetry ? { onRetry: ctx.onRetry } : {}),
      ...(ctx.sleep ? { sleep: ctx.sleep } : {}),
      ...(ctx.stop ? { signal: ctx.stop } : {}),
    });
    return { status: 'posted', attempts, remoteReference, postedBy: found ? 'found' : row.deleted ? 'deleted' : request.method === 'POST' ? 'created' : 'updated' };
  } catch (error) {
    if (ledgerFailure) throw ledgerFailure.error;
    // sendWithRetry wraps whatever an attempt throws; a lost right to send is not an HTTP failure.
    const lost = rightToSendLost(error);
    if (lost) throw lost;
    const duplicates = error instanceof HttpRequestFailedError ? error.cause : error;
    if (duplicates instanceof RemoteDuplicatesError) return { status: 'review', attempts, error: duplicates.message, remoteDuplicates: duplicates.references };
    if (!(error instanceof HttpRequestFailedError)) {
      return { status: 'failed', attempts, failureKind: 'terminal', error: (error as Error).message };
    }
    const { failure } = error;
    return { ...strategy.ending(failure), attempts, error: describe(failure, error.cause), ...(failure.status ? { httpStatus: failure.status } : {}) };
  }
}
