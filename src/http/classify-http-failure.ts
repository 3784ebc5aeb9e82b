import { describeStatus, HttpStatusError } from './http-status-error.ts';

/**
 * What one failed HTTP attempt means, decided by {@link classifyHttpFailure}.
 *
 * - `kind`: `transient` = trying again may succeed (network trouble, 408, 429, 5xx);
 *   `terminal` = it will not (other 4xx, programming errors).
 * - `outcome`: what the destination did with the request.
 *   `not-sent` = it never reached the server, so resending cannot duplicate anything;
 *   `rejected` = the server answered with an error status and applied nothing (5xx included);
 *   `unknown` = it may have been applied (the connection failed after sending), so only an
 *   idempotent resend (e.g. same `Idempotency-Key`) or a check at the destination is safe.
 */
export interface HttpFailure {
  readonly kind: 'transient' | 'terminal';
  readonly outcome: 'not-sent' | 'rejected' | 'unknown';
  /** A short sentence for logs and the post ledger, e.g. `HTTP 503 Service Unavailable`. */
  readonly reason: string;
  /** The response status, when the server answered. */
  readonly status?: number;
  /** The server's `Retry-After` (ms), when it sent a valid one. */
  readonly retryAfterMs?: number;
}

type NetworkFailure = Pick<HttpFailure, 'outcome' | 'reason'>;

/** Error codes of undici and Node's `net`/`dns` that are worth retrying, and what each says about the request. */
const NETWORK_FAILURES: ReadonlyMap<string, NetworkFailure> = new Map([
  ['UND_ERR_CONNECT_TIMEOUT', { outcome: 'not-sent', reason: 'connect timeout (request not sent)' }],
  ['ECONNREFUSED', { outcome: 'not-sent', reason: 'connection refused (request not sent)' }],
  ['ENOTFOUND', { outcome: 'not-sent', reason: 'host name not found (request not sent)' }],
  ['EAI_AGAIN', { outcome: 'not-sent', reason: 'temporary DNS failure (request not sent)' }],
  // undici fails requests still queued (never written to a socket) with this when the pool is destroyed.
  ['UND_ERR_DESTROYED', { outcome: 'not-sent', reason: 'connection pool destroyed before the request was sent (request not sent)' }],
  ['UND_ERR_HEADERS_TIMEOUT', { outcome: 'unknown', reason: 'headers timeout after the request was sent (outcome unknown)' }],
  ['UND_ERR_BODY_TIMEOUT', { outcome: 'unknown', reason: 'body timeout while reading the response (outcome unknown)' }],
  ['UND_ERR_SOCKET', { outcome: 'unknown', reason: 'connection closed by the other side (outcome unknown)' }],
  ['ECONNRESET', { outcome: 'unknown', reason: 'connection reset (outcome unknown)' }],
  ['EPIPE', { outcome: 'unknown', reason: 'connection broke while sending (outcome unknown)' }],
  ['UND_ERR_ABORTED', { outcome: 'unknown', reason: 'request aborted (outcome unknown)' }],
]);

/**
 * The one place that decides whether a failed HTTP attempt is worth retrying and whether the
 * destination may have applied it. Never throws.
 *
 * - {@link HttpStatusError} 408, 429 and 5xx: `transient`, `rejected`; other 4xx: `terminal`, `rejected`.
 * - Network errors, looked up by `error.code`, then `error.cause.code` (undici's `fetch` wraps them
 *   in `TypeError('fetch failed')`): connect timeout, `ECONNREFUSED`, `ENOTFOUND`, `EAI_AGAIN`,
 *   `UND_ERR_DESTROYED` are `transient`, `not-sent`; headers/body timeout, `UND_ERR_SOCKET`,
 *   `ECONNRESET`, `EPIPE`, `UND_ERR_ABORTED` are `transient`, `unknown`.
 * - Anything else (a `TypeError` from a bug, an invalid JSON response, the caller's own
 *   `AbortSignal`): `terminal` with the error's message, and outcome `unknown`, because nothing
 *   proves the request was not sent.
 */
export function classifyHttpFailure(error: unknown): HttpFailure {
  if (error instanceof HttpStatusError) {
    const { status, retryAfterMs } = error;
    const transient = status === 408 || status === 429 || status >= 500;
    return { kind: transient ? 'transient' : 'terminal', outcome: 'rejected', reason: describeStatus(status), status, retryAfterMs };
  }
  const network = networkFailure(error) ?? networkFailure(error instanceof Error ? error.cause : undefined);
  if (network !== undefined) return { kind: 'transient', ...network };
  return { kind: 'terminal', outcome: 'unknown', reason: error instanceof Error ? error.message || error.name : String(error) };
}

function networkFailure(error: unknown): NetworkFailure | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' ? NETWORK_FAILURES.get(code) : undefined;
}
