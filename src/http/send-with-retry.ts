import { setTimeout as delay } from 'node:timers/promises';
import pRetry, { AbortError } from 'p-retry';
import { classifyHttpFailure } from './classify-http-failure.ts';
import type { HttpFailure } from './classify-http-failure.ts';
import { retryDelayMs } from './compute-backoff-ms.ts';
import { HttpRequestFailedError } from './http-request-failed-error.ts';
import type { RetrySettings } from './http-settings.ts';

/** What {@link sendWithRetry} reports before it waits for the next attempt. */
export interface RetryInfo {
  /** The attempt that just failed (1 = the first); the next one is `attempt + 1`. */
  readonly attempt: number;
  readonly failure: HttpFailure;
  /** The wait before the next attempt (ms). */
  readonly delayMs: number;
}

/** Options of {@link sendWithRetry}; everything but `settings` is optional and injectable for tests. */
export interface SendWithRetryOptions {
  readonly settings: RetrySettings;
  /**
   * Whether to try again after `failure` on attempt `attempt` (1-based), within `maxAttempts`
   * and `maxRetryTimeMs`. @defaultValue `failure.kind === 'transient'`
   */
  readonly shouldRetry?: (failure: HttpFailure, attempt: number) => boolean;
  /** Called (and awaited) before each wait, e.g. to log; an error thrown here ends the retries with that error. */
  readonly onRetry?: (info: RetryInfo) => void | Promise<void>;
  /** Waits `ms`. @defaultValue `setTimeout` from `node:timers/promises` */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Jitter source in `[0, 1)`. @defaultValue `Math.random` */
  readonly random?: () => number;
  /** The clock the `maxRetryTimeMs` budget is measured with (ms). @defaultValue `Date.now` */
  readonly now?: () => number;
  /**
   * Once aborted, no further attempt is made: a wait under way ends at once, and the retries end
   * with the last failure (a process asked to stop). @defaultValue none
   */
  readonly signal?: AbortSignal;
}

/**
 * Calls `attemptFn(attempt)` (attempt 1, 2, …) until it resolves, retrying failures that
 * `shouldRetry` accepts after the wait given by `retryDelayMs` (exponential backoff with jitter,
 * honouring `Retry-After`).
 *
 * Built on p-retry, which counts the attempts (`retries = maxAttempts − 1`) and stops at once on
 * its `AbortError`; p-retry's own wait is switched off (`minTimeout: 0`) and the wait happens in
 * `onFailedAttempt` so that it can honour `Retry-After` and use the injected `sleep`.
 * A retry whose wait would end after `maxRetryTimeMs` (counted from the first attempt) is not made.
 *
 * The caller decides whether repeating the request is safe: a failure with outcome `unknown`
 * (e.g. a timeout after sending) is `transient`, so a non-idempotent POST must carry an
 * idempotency key or pass a `shouldRetry` that refuses such failures.
 *
 * @returns what `attemptFn` resolved with.
 * @throws HttpRequestFailedError with the last `failure`, the `attempts` made and the original
 *   error as `cause`, when a failure is not retried or the attempts or time budget run out.
 * @example
 * ```ts
 * const res = await sendWithRetry(() => requestJson(agent, { method: 'PUT', url, body }), {
 *   settings: settings.retry,
 *   onRetry: ({ attempt, failure, delayMs }) => log.warn({ attempt, delayMs }, failure.reason),
 * });
 * ```
 */
export async function sendWithRetry<T>(attemptFn: (attempt: number) => Promise<T>, options: SendWithRetryOptions): Promise<T> {
  const { settings, shouldRetry = (failure) => failure.kind === 'transient', onRetry, sleep = delay, random = Math.random, now = Date.now, signal } = options;
  const startedAt = now();
  return pRetry(
    async (attempt) => {
      try {
        return await attemptFn(attempt);
      } catch (error) {
        const failure = classifyHttpFailure(error);
        const failed = new HttpRequestFailedError(failure, attempt, error);
        // p-retry rejects with the error an AbortError wraps, without calling onFailedAttempt.
        throw shouldRetry(failure, attempt) ? failed : new AbortError(failed);
      }
    },
    {
      retries: settings.maxAttempts - 1,
      minTimeout: 0,
      maxTimeout: 0,
      randomize: false,
      // p-retry calls this for every non-AbortError, even the last one, before its own checks;
      // throwing here ends the retries with the thrown error.
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        const failed = error as HttpRequestFailedError; // the only thing the attempt function throws
        if (retriesLeft === 0 || signal?.aborted) throw failed;
        const delayMs = retryDelayMs(failed.failure, attemptNumber, settings, random);
        if (now() - startedAt + delayMs > settings.maxRetryTimeMs) throw failed;
        await onRetry?.({ attempt: attemptNumber, failure: failed.failure, delayMs });
        await sleepUnlessAborted(sleep, delayMs, signal);
        if (signal?.aborted) throw failed;
      },
    },
  );
}

/** `sleep(ms)`, ended early when `signal` aborts. */
async function sleepUnlessAborted(sleep: (ms: number) => Promise<void>, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return sleep(ms);
  if (signal.aborted) return;
  let onAbort = (): void => undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
