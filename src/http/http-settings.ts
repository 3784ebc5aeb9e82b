/**
 * How idem retries one HTTP request. All durations are in milliseconds.
 *
 * @example
 * ```ts
 * const retry: RetrySettings = { ...DEFAULT_HTTP_SETTINGS.retry, maxAttempts: 3 };
 * ```
 */
export interface RetrySettings {
  /** Attempts in total, the first one included (`1` = never retry). @defaultValue `5` */
  readonly maxAttempts: number;
  /** Backoff before the first retry, before jitter (ms). @defaultValue `200` */
  readonly minDelayMs: number;
  /** Upper bound of the backoff before jitter (ms). @defaultValue `30000` */
  readonly maxDelayMs: number;
  /** Growth of the backoff per retry. @defaultValue `2` */
  readonly factor: number;
  /**
   * Total time budget from the start of the first attempt (ms): a retry whose wait would end
   * after it is not made, and the last failure is reported instead. @defaultValue `120000`
   */
  readonly maxRetryTimeMs: number;
  /**
   * Longest `Retry-After` honoured (ms): a longer one is capped to this value.
   * @defaultValue `60000`
   */
  readonly maxRetryAfterMs: number;
}

/**
 * Connection, timeout and retry settings of the HTTP layer shared by the post stage and the
 * API-import source. All durations are in milliseconds.
 */
export interface HttpSettings {
  /** Time to open the TCP (and TLS) connection (ms). @defaultValue `5000` */
  readonly connectTimeoutMs: number;
  /** Time from sending the request to receiving the complete response headers (ms). @defaultValue `30000` */
  readonly headersTimeoutMs: number;
  /** Longest silence between two chunks of the response body (ms). @defaultValue `30000` */
  readonly bodyTimeoutMs: number;
  /** How long an idle keep-alive socket stays open for reuse (ms). @defaultValue `4000` */
  readonly keepAliveTimeoutMs: number;
  /**
   * Requests a caller keeps in flight at once; `createHttpAgent` allows as many sockets per
   * origin, so no request waits for a free socket. @defaultValue `8`
   */
  readonly concurrency: number;
  /** Retry policy, see {@link RetrySettings}. */
  readonly retry: RetrySettings;
}

/** What callers may pass to {@link resolveHttpSettings}: any subset, `undefined` meaning "the default". */
export type HttpSettingsInput = Partial<Omit<HttpSettings, 'retry'>> & { readonly retry?: Partial<RetrySettings> };

/** The defaults documented on {@link HttpSettings} and {@link RetrySettings} (deeply frozen). */
export const DEFAULT_HTTP_SETTINGS: HttpSettings = Object.freeze({
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  keepAliveTimeoutMs: 4_000,
  concurrency: 8,
  retry: Object.freeze({
    maxAttempts: 5,
    minDelayMs: 200,
    maxDelayMs: 30_000,
    factor: 2,
    maxRetryTimeMs: 120_000,
    maxRetryAfterMs: 60_000,
  }),
});

/** Fields that must be integers ≥ 1; `factor` must be ≥ 1 and every other field ≥ 0. */
const POSITIVE_INTEGERS = new Set(['concurrency', 'maxAttempts']);

/**
 * Merges `input` over {@link DEFAULT_HTTP_SETTINGS} (`undefined` fields keep the default) and
 * validates the result.
 *
 * @returns a new frozen {@link HttpSettings}.
 * @throws RangeError naming the field and the bad value, e.g.
 *   `http.retry.maxAttempts must be an integer ≥ 1 (got 0)`.
 */
export function resolveHttpSettings(input: HttpSettingsInput = {}): HttpSettings {
  const { retry: defaultRetry, ...defaultConnection } = DEFAULT_HTTP_SETTINGS;
  const { retry, ...connection } = input;
  return Object.freeze({
    ...check('http', withDefaults(defaultConnection, connection)),
    retry: Object.freeze(check('http.retry', withDefaults(defaultRetry, retry ?? {}))),
  });
}

function withDefaults<T extends object>(defaults: T, input: Partial<T>): T {
  const defined = Object.entries(input).filter(([, value]) => value !== undefined);
  return { ...defaults, ...Object.fromEntries(defined) };
}

function check<T extends object>(prefix: string, fields: T): T {
  for (const [name, value] of Object.entries(fields)) {
    const integer = POSITIVE_INTEGERS.has(name);
    const min = integer || name === 'factor' ? 1 : 0;
    const ok = typeof value === 'number' && Number.isFinite(value) && value >= min && (!integer || Number.isInteger(value));
    if (!ok) {
      throw new RangeError(`${prefix}.${name} must be ${integer ? 'an integer' : 'a finite number'} ≥ ${min} (got ${String(value)})`);
    }
  }
  return fields;
}
