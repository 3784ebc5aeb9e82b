import type { Dispatcher } from 'undici';
import type { HttpFailure } from '../http/classify-http-failure.ts';
import { HttpRequestFailedError } from '../http/http-request-failed-error.ts';
import { requestJson } from '../http/request-json.ts';
import { sendWithRetry, type RetryInfo } from '../http/send-with-retry.ts';
import type { LedgerItem, LedgerStatus } from '../ledger/ledger-item.ts';
import { ClaimLostError } from './claim-lost-error.ts';
import type { PostedRow } from '../destination/destination-definition.ts';
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
  /** check-before-create found the record already there: nothing was created. */
  readonly found?: boolean;
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

/**
 * Sends one ledger item by its destination's strategy (see `PostStrategy`), with retries. Never
 * throws: every ending is an outcome for the ledger. A terminal failure (a 4xx other than 408
 * and 429) stops at once; an unknown outcome is retried only where the strategy makes a resend
 * safe, and under mark-before-send goes to `review`.
 * @throws ClaimLostError only from `markSending`: the item belongs to another process now.
 */
export async function postItem(item: LedgerItem, row: PostedRow, ctx: PostItemContext): Promise<PostItemOutcome> {
  const { destination, agent } = ctx;
  const { definition, strategy } = destination;
  const request = definition.request(row);
  const headers: Record<string, string> = { ...destination.headers };
  if (strategy === 'idempotency-key') headers['idempotency-key'] = item.idempotencyKey;
  let attempts = 0;
  let found = false;
  let requested = false;

  const send: typeof requestJson = (dispatcher, options) => {
    if (!requested) {
      requested = true;
      ctx.onFirstRequest?.();
    }
    return requestJson(dispatcher, options);
  };
  const create = async (): Promise<string> => {
    const response = await send(agent, { method: request.method, url: `${destination.url}${request.path}`, headers: { ...headers, ...request.headers }, body: request.body });
    return definition.remoteReference(response.body);
  };
  const attempt = async (): Promise<string> => {
    attempts += 1;
    if (strategy === 'check-before-create') {
      const lookup = definition.lookup!;
      const response = await send(agent, { method: 'GET', url: `${destination.url}${lookup.path(row)}`, headers: destination.headers });
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
      shouldRetry: (failure) => failure.kind === 'transient' && (strategy !== 'mark-before-send' || failure.outcome !== 'unknown'),
      ...(ctx.onRetry ? { onRetry: ctx.onRetry } : {}),
      ...(ctx.sleep ? { sleep: ctx.sleep } : {}),
    });
    return { status: 'posted', attempts, remoteReference, ...(found ? { found } : {}) };
  } catch (error) {
    // sendWithRetry wraps whatever an attempt throws; a lost claim is not an HTTP failure.
    if (error instanceof ClaimLostError) throw error;
    if (error instanceof HttpRequestFailedError && error.cause instanceof ClaimLostError) throw error.cause;
    if (!(error instanceof HttpRequestFailedError)) {
      return { status: 'failed', attempts, failureKind: 'terminal', error: (error as Error).message };
    }
    const { failure } = error;
    const common = { attempts, error: describe(failure, error.cause), ...(failure.status ? { httpStatus: failure.status } : {}) };
    if (strategy === 'mark-before-send' && failure.outcome === 'unknown') return { status: 'review', ...common };
    return { status: 'failed', failureKind: failure.kind, ...common };
  }
}
