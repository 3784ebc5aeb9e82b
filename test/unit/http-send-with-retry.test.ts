import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import type { HttpFailure } from '../../src/http/classify-http-failure.ts';
import { HttpRequestFailedError } from '../../src/http/http-request-failed-error.ts';
import { DEFAULT_HTTP_SETTINGS } from '../../src/http/http-settings.ts';
import type { RetrySettings } from '../../src/http/http-settings.ts';
import { HttpStatusError } from '../../src/http/http-status-error.ts';
import { sendWithRetry } from '../../src/http/send-with-retry.ts';
import type { RetryInfo } from '../../src/http/send-with-retry.ts';

const statusError = (status: number, retryAfterMs?: number) =>
  new HttpStatusError({ status, body: '', url: 'http://api.test/orders', method: 'PUT', retryAfterMs });

/**
 * Runs sendWithRetry with a fake clock: `sleep` records the wait and moves the clock, `random`
 * is 0 (backoff = half its cap: 100, 200, 400 … ms). `outcomes[i]` is what attempt i + 1 does.
 */
async function run(outcomes: readonly unknown[], options: { settings?: Partial<RetrySettings>; shouldRetry?: (failure: HttpFailure, attempt: number) => boolean } = {}) {
  let clock = 1_000_000;
  const attempts: number[] = [];
  const sleeps: number[] = [];
  const retries: RetryInfo[] = [];
  const result = sendWithRetry(
    async (attempt) => {
      attempts.push(attempt);
      const outcome = outcomes[attempt - 1];
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
    {
      settings: { ...DEFAULT_HTTP_SETTINGS.retry, ...options.settings },
      shouldRetry: options.shouldRetry,
      onRetry: (info) => void retries.push(info),
      sleep: async (ms) => {
        sleeps.push(ms);
        clock += ms;
      },
      random: () => 0,
      now: () => clock,
    },
  ).then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error }),
  );
  return { ...(await result), attempts, sleeps, retries };
}

function failed(error: unknown): HttpRequestFailedError {
  expect(error).toBeInstanceOf(HttpRequestFailedError);
  return error as HttpRequestFailedError;
}

describe('sendWithRetry', () => {
  it('a signal aborted during a wait (a polite stop) ends it at once, and the retries with the last failure', async () => {
    const stop = new AbortController();
    const attempts: number[] = [];
    const waits: number[] = [];
    const outcome = sendWithRetry(
      async (attempt) => {
        attempts.push(attempt);
        throw statusError(503);
      },
      {
        settings: DEFAULT_HTTP_SETTINGS.retry,
        // A wait that never ends by itself: only the stop can end it.
        sleep: (ms) => {
          waits.push(ms);
          setImmediate(() => stop.abort());
          return new Promise(() => undefined);
        },
        signal: stop.signal,
      },
    ).catch((error: unknown) => error);
    const error = failed(await outcome);
    expect(error.failure.reason).toBe('HTTP 503 Service Unavailable');
    expect({ attempts, waits: waits.length }).toEqual({ attempts: [1], waits: 1 });
  });

  it('makes no retry once the signal is aborted', async () => {
    const stop = new AbortController();
    stop.abort();
    const attempts: number[] = [];
    const error = failed(await sendWithRetry(async (attempt) => {
      attempts.push(attempt);
      throw statusError(503);
    }, { settings: DEFAULT_HTTP_SETTINGS.retry, sleep: () => new Promise(() => undefined), signal: stop.signal }).catch((e: unknown) => e));
    expect(error.attempts).toBe(1);
    expect(attempts).toEqual([1]);
  });

  it('retries 503 twice, then returns the result', async () => {
    const { value, attempts, sleeps, retries } = await run([statusError(503), statusError(503), 'ok']);
    expect(value).toBe('ok');
    expect(attempts).toEqual([1, 2, 3]);
    expect(sleeps).toEqual([100, 200]);
    expect(retries.map(({ attempt, delayMs, failure }) => [attempt, delayMs, failure.reason])).toEqual([
      [1, 100, 'HTTP 503 Service Unavailable'],
      [2, 200, 'HTTP 503 Service Unavailable'],
    ]);
  });

  it('waits at least the Retry-After of a 429', async () => {
    const { value, sleeps } = await run([statusError(429, 2000), 'ok']);
    expect(value).toBe('ok');
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000);
  });

  it('stops at once on a 400 and reports a terminal failure', async () => {
    const badRequest = statusError(400);
    const { error, attempts, sleeps } = await run([badRequest, 'ok']);
    const failure = failed(error);
    expect(failure.failure).toMatchObject({ kind: 'terminal', outcome: 'rejected', status: 400 });
    expect(failure.attempts).toBe(1);
    expect(failure.cause).toBe(badRequest);
    expect(failure.message).toBe('HTTP 400 Bad Request, after 1 attempt(s): a rerun will not help until the cause is fixed');
    expect(attempts).toEqual([1]);
    expect(sleeps).toEqual([]);
  });

  it('stops with the last error when the next wait would pass maxRetryTimeMs', async () => {
    const last = statusError(502);
    // waits 100 ms after attempt 1; the next wait (200 ms) would end at 300 ms > 250 ms
    const { error, attempts, sleeps } = await run([statusError(503), last, 'ok'], { settings: { maxRetryTimeMs: 250 } });
    const failure = failed(error);
    expect(failure.cause).toBe(last);
    expect(failure.attempts).toBe(2);
    expect(failure.failure).toMatchObject({ kind: 'transient', status: 502 });
    expect(attempts).toEqual([1, 2]);
    expect(sleeps).toEqual([100]);
  });

  it('makes no more than maxAttempts attempts and does not wait after the last', async () => {
    const { error, attempts, sleeps } = await run(Array.from({ length: 10 }, () => statusError(503)), { settings: { maxAttempts: 3 } });
    const failure = failed(error);
    expect(failure.attempts).toBe(3);
    expect(failure.message).toBe('HTTP 503 Service Unavailable, after 3 attempt(s): a later rerun may succeed');
    expect(attempts).toEqual([1, 2, 3]);
    expect(sleeps).toEqual([100, 200]);
  });

  it('retries network errors, also when wrapped in a TypeError', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const { value, attempts } = await run([refused, new TypeError('fetch failed', { cause: refused }), 'ok']);
    expect(value).toBe('ok');
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('does not retry a programming error', async () => {
    const bug = new TypeError('body.map is not a function');
    const { error, attempts } = await run([bug, 'ok']);
    expect(failed(error).failure).toEqual({ kind: 'terminal', outcome: 'unknown', reason: 'body.map is not a function' });
    expect(failed(error).cause).toBe(bug);
    expect(attempts).toEqual([1]);
  });

  it('lets the caller refuse to resend when the outcome is unknown', async () => {
    const { error, attempts } = await run([new errors.HeadersTimeoutError(), 'ok'], {
      shouldRetry: (failure) => failure.kind === 'transient' && failure.outcome !== 'unknown',
    });
    expect(failed(error).failure).toMatchObject({ kind: 'transient', outcome: 'unknown' });
    expect(attempts).toEqual([1]);
  });
});
