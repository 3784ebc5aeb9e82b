import { z } from 'zod';

/**
 * How idem retries one HTTP request. All durations are in milliseconds; the range of each field
 * is what {@link HttpSettingsSchema} accepts.
 *
 * @example
 * ```ts
 * const retry: RetrySettings = { ...DEFAULT_HTTP_SETTINGS.retry, maxAttempts: 3 };
 * ```
 */
export interface RetrySettings {
  /** Attempts in total, the first one included (`1` = never retry); an integer ≥ 1. @defaultValue `5` */
  readonly maxAttempts: number;
  /** Backoff before the first retry, before jitter (ms, an integer ≥ 0). @defaultValue `200` */
  readonly minDelayMs: number;
  /** Upper bound of the backoff before jitter (ms, an integer ≥ 1). @defaultValue `30000` */
  readonly maxDelayMs: number;
  /** Growth of the backoff per retry; a number ≥ 1. @defaultValue `2` */
  readonly factor: number;
  /**
   * Total time budget from the start of the first attempt (ms, an integer ≥ 1): a retry whose
   * wait would end after it is not made, and the last failure is reported instead.
   * @defaultValue `120000`
   */
  readonly maxRetryTimeMs: number;
  /**
   * Longest `Retry-After` honoured (ms, an integer ≥ 0): a longer one is capped to this value.
   * @defaultValue `60000`
   */
  readonly maxRetryAfterMs: number;
}

/**
 * Connection, timeout and retry settings of the HTTP layer shared by the post stage and the
 * API-import source. All durations are in milliseconds; the range of each field is what
 * {@link HttpSettingsSchema} accepts.
 */
export interface HttpSettings {
  /** Time to open the TCP (and TLS) connection (ms, an integer ≥ 1). @defaultValue `5000` */
  readonly connectTimeoutMs: number;
  /** Time from sending the request to receiving the complete response headers (ms, an integer ≥ 1). @defaultValue `30000` */
  readonly headersTimeoutMs: number;
  /** Longest silence between two chunks of the response body (ms, an integer ≥ 1). @defaultValue `30000` */
  readonly bodyTimeoutMs: number;
  /** How long an idle keep-alive socket stays open for reuse (ms, an integer ≥ 1). @defaultValue `4000` */
  readonly keepAliveTimeoutMs: number;
  /**
   * Requests a caller keeps in flight at once, an integer from 1 to 256; `createHttpAgent`
   * allows as many sockets per origin, so no request waits for a free socket. @defaultValue `8`
   */
  readonly concurrency: number;
  /** Retry policy, see {@link RetrySettings}. */
  readonly retry: RetrySettings;
}

/**
 * HTTP settings as a pipeline declares them (`http` of a destination or an HTTP source) or a
 * deployment overrides them (`http` in `IDEM_DESTINATIONS` / `IDEM_SOURCES`): any subset,
 * `undefined` meaning "the default".
 */
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

/**
 * One optional numeric field whose every rejection reads "must be <rule> (got <value>)". A value
 * that is not a number is named by its type only: a deployment setting may hold credentials.
 */
function field(integer: boolean, min: number, max?: number) {
  const rule = `must be ${integer ? 'an integer' : 'a number'} ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}`;
  const number = z.number({ error: (issue) => `${rule} (got ${typeof issue.input === 'number' ? issue.input : typeof issue.input})` });
  const bounded = (integer ? number.int() : number).min(min);
  return (max === undefined ? bounded : bounded.max(max)).optional();
}

/**
 * The one set of rules for HTTP settings, wherever they come from: a pipeline's destinations
 * and HTTP source (checked when the pipeline module is imported), `IDEM_DESTINATIONS` and
 * `IDEM_SOURCES` (checked when the settings are read), and {@link resolveHttpSettings}.
 * Every field is optional; unknown fields are rejected. The ranges are documented on
 * {@link HttpSettings} and {@link RetrySettings}.
 */
export const HttpSettingsSchema: z.ZodType<HttpSettingsInput> = z
  .object({
    connectTimeoutMs: field(true, 1),
    headersTimeoutMs: field(true, 1),
    bodyTimeoutMs: field(true, 1),
    keepAliveTimeoutMs: field(true, 1),
    concurrency: field(true, 1, 256),
    retry: z
      .object({
        maxAttempts: field(true, 1),
        minDelayMs: field(true, 0),
        maxDelayMs: field(true, 1),
        factor: field(false, 1),
        maxRetryTimeMs: field(true, 1),
        maxRetryAfterMs: field(true, 0),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * What is wrong with `input` by {@link HttpSettingsSchema}, as `http.<field>: <rule> (got
 * <value>)` (the first problem found), or `undefined` when nothing is.
 */
export function httpSettingsProblem(input: unknown): string | undefined {
  const parsed = HttpSettingsSchema.safeParse(input);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  return `${['http', ...issue.path].join('.')}: ${issue.message}`;
}

/**
 * Merges `layers` over {@link DEFAULT_HTTP_SETTINGS}, later layers winning field by field
 * (`undefined` fields and layers change nothing), for example the pipeline's `http` and then the
 * deployment's.
 *
 * @returns a new, deeply frozen {@link HttpSettings}.
 * @throws RangeError naming the field, the rule and the value of the first layer that breaks
 *   {@link HttpSettingsSchema}, e.g. `http.retry.maxAttempts: must be an integer ≥ 1 (got 0)`.
 */
export function resolveHttpSettings(...layers: readonly (HttpSettingsInput | undefined)[]): HttpSettings {
  for (const layer of layers) {
    const problem = httpSettingsProblem(layer ?? {});
    if (problem !== undefined) throw new RangeError(problem);
  }
  const { retry: defaultRetry, ...defaultConnection } = DEFAULT_HTTP_SETTINGS;
  return Object.freeze({
    ...withDefined(defaultConnection, layers.map((layer) => ({ ...layer, retry: undefined }))),
    retry: Object.freeze(withDefined(defaultRetry, layers.map((layer) => layer?.retry))),
  });
}

/** `base` with every defined field of `layers` laid over it, in order. */
function withDefined<T extends object>(base: T, layers: readonly (Partial<T> | undefined)[]): T {
  const defined = layers.flatMap((layer) => Object.entries(layer ?? {}).filter(([, value]) => value !== undefined));
  return { ...base, ...Object.fromEntries(defined) };
}
