import { describe, expect, it } from 'vitest';
import type { HttpFailure } from '../../src/http/classify-http-failure.ts';
import { computeBackoffMs, retryDelayMs } from '../../src/http/compute-backoff-ms.ts';
import { DEFAULT_HTTP_SETTINGS } from '../../src/http/http-settings.ts';
import { parseRetryAfter } from '../../src/http/parse-retry-after.ts';

const retry = DEFAULT_HTTP_SETTINGS.retry; // 200 ms × 2^(n−1), capped at 30 000 ms
const lowest = () => 0;
const highest = () => 1 - Number.EPSILON;
const unavailable = (retryAfterMs?: number): HttpFailure => ({
  kind: 'transient',
  outcome: 'rejected',
  reason: 'HTTP 503 Service Unavailable',
  status: 503,
  retryAfterMs,
});

describe('computeBackoffMs', () => {
  const caps = [200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000];

  it('waits half the capped exponential delay when random() is 0', () => {
    expect(caps.map((_, i) => computeBackoffMs(i + 1, retry, lowest))).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 12800, 15000, 15000]);
  });

  it('waits the full capped exponential delay when random() is just below 1', () => {
    expect(caps.map((_, i) => computeBackoffMs(i + 1, retry, highest))).toEqual(caps);
  });

  it('puts random() = 0.5 three quarters of the way', () => {
    expect(computeBackoffMs(1, retry, () => 0.5)).toBe(150);
  });

  it('never exceeds maxDelayMs, however many retries', () => {
    expect(computeBackoffMs(1000, retry, highest)).toBe(30000);
    expect(computeBackoffMs(3, { ...retry, maxDelayMs: 500 }, highest)).toBe(500);
  });

  it('rejects an attempt below 1', () => {
    expect(() => computeBackoffMs(0, retry, lowest)).toThrow(RangeError);
  });
});

describe('retryDelayMs', () => {
  it('is the backoff when there is no Retry-After', () => {
    expect(retryDelayMs(unavailable(), 2, retry, lowest)).toBe(200);
  });

  it('waits for the Retry-After when it is longer than the backoff', () => {
    expect(retryDelayMs(unavailable(2000), 1, retry, lowest)).toBe(2000);
  });

  it('keeps the backoff when it is longer than the Retry-After', () => {
    expect(retryDelayMs(unavailable(0), 1, retry, lowest)).toBe(100);
    expect(retryDelayMs(unavailable(2000), 10, retry, highest)).toBe(30000);
  });

  it('caps a Retry-After at maxRetryAfterMs', () => {
    expect(retryDelayMs(unavailable(3_600_000), 1, retry, lowest)).toBe(60000);
  });

  it('never undercuts the Retry-After, for any attempt and jitter', () => {
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      for (const random of [0, 0.3, 0.7, 1 - Number.EPSILON]) {
        expect(retryDelayMs(unavailable(5000), attempt, retry, () => random)).toBeGreaterThanOrEqual(5000);
      }
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('1994-11-06T08:49:07Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads the three HTTP-date forms as UTC, relative to the given now', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', now)).toBe(30_000);
  });

  it('gives 0 for a date in the past', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:00:00 GMT', now)).toBe(0);
  });

  it('accepts a repeated header only when its values agree', () => {
    expect(parseRetryAfter(['5', '5'], now)).toBe(5000);
    expect(parseRetryAfter(['5', '6'], now)).toBeUndefined();
  });

  it.each([undefined, '', 'soon', '-1', '1.5', '12abc', '2024-01-01', 'Sun, 32 Nov 1994 08:49:37 GMT'])('rejects %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
