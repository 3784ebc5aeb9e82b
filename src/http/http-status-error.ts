/** Longest part of a response body kept on an {@link HttpStatusError} (UTF-16 code units, ~2 KB). */
const MAX_BODY_CHARS = 2048;

/** The server answered with a status ≥ 400. Thrown by `requestJson`; `classifyHttpFailure` decides what it means. */
export class HttpStatusError extends Error {
  /** The response status code (400–599). */
  readonly status: number;
  /** The response body as text, cut to its first 2048 characters. */
  readonly body: string;
  /** The parsed `Retry-After` header (ms), when the server sent a valid one. */
  readonly retryAfterMs: number | undefined;
  /** The URL the request went to, its secrets redacted (see `redactSecrets`). */
  readonly url: string;
  /** The request method (`GET`, `POST`, `PUT`). */
  readonly method: string;

  constructor(fields: { status: number; body: string; url: string; method: string; retryAfterMs?: number | undefined }) {
    super(`${fields.method} ${fields.url}: ${describeStatus(fields.status)}`);
    this.name = new.target.name;
    this.status = fields.status;
    this.body = fields.body.slice(0, MAX_BODY_CHARS);
    this.retryAfterMs = fields.retryAfterMs;
    this.url = fields.url;
    this.method = fields.method;
  }
}

/**
 * `HTTP 503 Service Unavailable` (reason phrases of RFC 9110 §15 via `node:http`; just `HTTP 599` for
 * a code without one).
 *
 * @internal
 */
export function describeStatus(status: number): string {
  // The CommonJS module, asked for when a status is described: an ESM import of node:http makes
  // Node build its ESM facade, which reads every lazy export and loads Node's own bundled undici,
  // 70 ms of CPU in every process that loads this file (every run), whether it posts or not.
  const phrase = process.getBuiltinModule('node:http').STATUS_CODES[status];
  return phrase === undefined ? `HTTP ${status}` : `HTTP ${status} ${phrase}`;
}
