import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { HttpFailure } from '../http/classify-http-failure.ts';
import { HttpRequestFailedError } from '../http/http-request-failed-error.ts';
import { requestJson } from '../http/request-json.ts';
import { sendWithRetry, type RetryInfo } from '../http/send-with-retry.ts';
import { LockLostError } from '../errors/lock-lost-error.ts';
import type { LedgerItem, LedgerStatus } from '../ledger/ledger-item.ts';
import { ClaimLostError } from './claim-lost-error.ts';
import { isStripeKeyInFlight, type PostedRow } from '../destination/destination-definition.ts';
import { HttpStatusError } from '../http/http-status-error.ts';
import { requestMayHaveApplied } from '../destination/request-may-have-applied.ts';
import type { ResolvedDestination } from './resolved-destination.ts';
import { joinUrl } from '../http/join-url.ts';

/** How one item's post ended: the ledger change to record. */
export interface PostItemOutcome {
  readonly status: Extract<LedgerStatus, 'posted' | 'failed' | 'review'>;
  /** Attempts made now (added to the item's earlier attempts). */
  readonly attempts: number;
  readonly remoteReference?: string;
  readonly failureKind?: 'transient' | 'terminal';
  readonly httpStatus?: number;
  readonly error?: string;
  /** check-before-create found the record already there: nothing was created. */
  readonly found?: boolean;
  /**
   * check-before-create, failed: a create it sent may still be applied by the destination (see
   * `LedgerChange.requestMayLand`).
   */
  readonly requestMayLand?: boolean;
}

/** What {@link postItem} needs besides the item. */
export interface PostItemContext {
  readonly destination: ResolvedDestination;
  readonly agent: Dispatcher;
  /**
   * Marks the item `sending` and commits it (mark-before-send, before every request).
   * @throws ClaimLostError when this process no longer holds the item's claim.
   */
  readonly markSending: () => Promise<void>;
  /**
   * Proves that this process may still send the item, immediately before every create request:
   * its claim, and the run's app lock (without a round trip while it can).
   * @throws ClaimLostError, LockLostError
   */
  readonly assertMaySend: () => Promise<void>;
  /** Called once, just before the item's first request (or look-up) goes out. */
  readonly onFirstRequest?: () => void;
  readonly onRetry?: (info: RetryInfo) => void;
  /** Injected in tests so long waits do not sleep. */
  readonly sleep?: (ms: number) => Promise<void>;
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
 * Sends one ledger item by its destination's strategy (see `PostStrategy`), with retries. Never
 * throws for an HTTP failure: every ending is an outcome for the ledger. The request is the
 * definition's for the row: a create, or an update of the record `row.remoteReference` names; the
 * strategies treat both alike, and "create" below means either. A terminal failure (a 4xx
 * other than 408 and 429) stops at once. A create that failed after it left, without proof that
 * the destination did not apply it (see `requestMayHaveApplied`), is resent only where the
 * strategy makes a resend safe: under idempotency-key with the same key; under check-before-create
 * after a look-up, which first waits out the destination's settle delay, so that a request the
 * destination applies late is found rather than created again; under mark-before-send never: it
 * goes to `review`. Every create request is preceded by the proof that this process may still
 * send it (`assertMaySend`).
 * @throws ClaimLostError or LockLostError from `markSending` or `assertMaySend`: the item belongs
 *   to another process now (or may soon), and nothing more is sent.
 */
export async function postItem(item: LedgerItem, row: PostedRow, ctx: PostItemContext): Promise<PostItemOutcome> {
  const { destination, agent } = ctx;
  const { definition, strategy } = destination;
  const sleep = ctx.sleep ?? delay;
  const request = definition.request(row);
  const headers: Record<string, string> = { ...destination.headers };
  if (strategy === 'idempotency-key') headers['idempotency-key'] = item.idempotencyKey;
  let attempts = 0;
  let found = false;
  let requested = false;
  /** Whether the last attempt's create failed in a way the destination may have applied. */
  let lastCreateMayHaveApplied = false;
  /** Whether any create of this item failed so (check-before-create: it may still land). */
  let createMayLand = false;
  /** idempotency-key: the last create met an answer saying its key is still in flight (see `keyInFlight`). */
  let lastKeyInFlight = false;
  /** check-before-create: no look-up before this instant (`performance.now()`, ms). */
  let settledAt = 0;

  const send: typeof requestJson = (dispatcher, options) => {
    if (!requested) {
      requested = true;
      ctx.onFirstRequest?.();
    }
    return requestJson(dispatcher, options);
  };
  const create = async (): Promise<string> => {
    await ctx.assertMaySend();
    try {
      const response = await send(agent, { method: request.method, url: joinUrl(destination.url, request.path), headers: { ...headers, ...request.headers }, body: request.body });
      return definition.remoteReference(response.body, row);
    } catch (error) {
      if (strategy === 'idempotency-key' && error instanceof HttpStatusError) {
        lastKeyInFlight = (definition.keyInFlight ?? isStripeKeyInFlight)({ status: error.status, body: error.body });
      }
      lastCreateMayHaveApplied = requestMayHaveApplied(definition, error);
      if (lastCreateMayHaveApplied) {
        createMayLand = true;
        settledAt = performance.now() + destination.settleDelayMs;
      }
      throw error;
    }
  };
  const attempt = async (): Promise<string> => {
    attempts += 1;
    lastCreateMayHaveApplied = false;
    lastKeyInFlight = false;
    if (strategy === 'check-before-create') {
      // An earlier create may still be applied: its record must be visible before "absent" counts.
      const wait = settledAt - performance.now();
      if (wait > 0) await sleep(wait);
      const lookup = definition.lookup!;
      const response = await send(agent, { method: 'GET', url: joinUrl(destination.url, lookup.path(row)), headers: destination.headers });
      const existing = lookup.find(response.body, row);
      if (existing !== undefined) {
        found = true;
        return existing;
      }
    }
    if (strategy === 'mark-before-send') await ctx.markSending();
    return create();
  };

  try {
    const remoteReference = await sendWithRetry(attempt, {
      settings: destination.http.retry,
      // Under mark-before-send a resend is safe only when the request provably did nothing.
      // Under idempotency-key a "key in flight" answer is transient: the first try may still land.
      shouldRetry: (failure) => (failure.kind === 'transient' || lastKeyInFlight) && !(strategy === 'mark-before-send' && lastCreateMayHaveApplied),
      ...(ctx.onRetry ? { onRetry: ctx.onRetry } : {}),
      ...(ctx.sleep ? { sleep: ctx.sleep } : {}),
    });
    return { status: 'posted', attempts, remoteReference, ...(found ? { found } : {}) };
  } catch (error) {
    // sendWithRetry wraps whatever an attempt throws; a lost right to send is not an HTTP failure.
    const lost = rightToSendLost(error);
    if (lost) throw lost;
    if (!(error instanceof HttpRequestFailedError)) {
      return { status: 'failed', attempts, failureKind: 'terminal', error: (error as Error).message };
    }
    const { failure } = error;
    const common = { attempts, error: describe(failure, error.cause), ...(failure.status ? { httpStatus: failure.status } : {}) };
    if (strategy === 'mark-before-send' && lastCreateMayHaveApplied) return { status: 'review', ...common };
    return { status: 'failed', failureKind: lastKeyInFlight ? 'transient' : failure.kind, ...common, ...(strategy === 'check-before-create' && createMayLand ? { requestMayLand: true } : {}) };
  }
}
