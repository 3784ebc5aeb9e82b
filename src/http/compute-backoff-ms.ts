import type { HttpFailure } from './classify-http-failure.ts';
import type { RetrySettings } from './http-settings.ts';

/**
 * The backoff before retry number `attempt` (1 = the first retry), in ms:
 * `round(cap × (0.5 + 0.5 × random()))` with `cap = min(maxDelayMs, minDelayMs × factor^(attempt − 1))`.
 *
 * The jitter keeps the wait in `[cap / 2, cap]` ("equal jitter" in the AWS Architecture Blog's
 * "Exponential Backoff And Jitter"): many workers that failed together spread out, yet none
 * retries almost at once, which would only hit a struggling server again.
 *
 * @param random - a source in `[0, 1)` like `Math.random`; tests pass a constant.
 * @throws RangeError when `attempt` is not an integer ≥ 1.
 * @example computeBackoffMs(3, DEFAULT_HTTP_SETTINGS.retry, () => 0) // 400 (cap 800)
 */
export function computeBackoffMs(attempt: number, settings: RetrySettings, random: () => number): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be an integer ≥ 1 (got ${attempt})`);
  const cap = Math.min(settings.maxDelayMs, settings.minDelayMs * settings.factor ** (attempt - 1));
  return Math.round(cap * (0.5 + 0.5 * random()));
}

/**
 * The wait before retry number `attempt` (1 = the first retry) after `failure`, in ms.
 *
 * Without a `Retry-After` it is {@link computeBackoffMs}. With one it is
 * `max(min(retryAfterMs, maxRetryAfterMs), backoff)`: never earlier than the server asked
 * (RFC 9110 §10.2.3), except that a `Retry-After` above `maxRetryAfterMs` is capped to it, and
 * never shorter than our own backoff, so a `Retry-After: 0` does not cause a tight loop.
 *
 * @throws RangeError when `attempt` is not an integer ≥ 1.
 */
export function retryDelayMs(failure: HttpFailure, attempt: number, settings: RetrySettings, random: () => number): number {
  const backoffMs = computeBackoffMs(attempt, settings, random);
  return failure.retryAfterMs === undefined ? backoffMs : Math.max(Math.min(failure.retryAfterMs, settings.maxRetryAfterMs), backoffMs);
}
