import { request } from 'undici';
import type { Dispatcher } from 'undici';
import { checkBeforeWrite } from './check-before-write.ts';
import { HttpStatusError } from './http-status-error.ts';
import { parseRetryAfter } from './parse-retry-after.ts';
import { stringifyJson } from './raw-json.ts';
import { redactSecrets } from '../text/redact-secrets.ts';

/** `application/json`, `application/problem+json`, `application/vnd.api+json`, … with or without parameters. */
const JSON_MEDIA_TYPE = /^[\w.-]+\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/** One JSON request. */
export interface JsonRequest {
  /**
   * GET and PUT are idempotent, POST is not (RFC 9110 §9.2.2): a POST may only be resent when
   * the destination de-duplicates it, e.g. by an `Idempotency-Key` header.
   */
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute URL. */
  readonly url: string;
  /** Extra request headers; names are lower-cased, and they override `accept` / `content-type`. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Sent as `JSON.stringify(body)` with `content-type: application/json`, a `RawJson` in it as its
   * text (see `stringifyJson`); no body when `undefined`.
   */
  readonly body?: unknown;
  /** Cancels the request; the rejection is then the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * Called right before the request is written to the socket (see `checkBeforeWrite`); when it
   * throws, nothing is written and the request rejects with what it threw.
   */
  readonly beforeWrite?: () => void;
}

/** A successful (status < 400) response. */
export interface JsonResponse {
  readonly status: number;
  /** Response headers with lower-case names; repeated headers are arrays. */
  readonly headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON for a JSON content type, otherwise the text; `undefined` for an empty body. */
  readonly body: unknown;
}

/**
 * Sends one JSON request through `agent` (no retries: wrap it in `sendWithRetry`).
 *
 * The response body is always read to its end, on errors too, because an unread undici body
 * keeps its socket busy and the pool eventually stalls.
 *
 * @throws HttpStatusError for a status ≥ 400, with the body text and the parsed `Retry-After`.
 * @throws SyntaxError when a response declared as JSON does not parse.
 * @throws the undici/Node network error as is (timeouts, refused or reset connections), for
 *   `classifyHttpFailure` to judge.
 * @example
 * ```ts
 * const { body } = await requestJson(agent, { method: 'PUT', url: `${base}/orders/42`, body: order });
 * ```
 */
export async function requestJson(agent: Dispatcher, req: JsonRequest): Promise<JsonResponse> {
  const { method, url, body, signal, beforeWrite } = req;
  const headers = Object.fromEntries(Object.entries(req.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const res = await request(url, {
    dispatcher: beforeWrite ? checkBeforeWrite(agent, beforeWrite) : agent,
    method,
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : stringifyJson(body),
    signal,
  });
  const text = await res.body.text();
  if (res.statusCode >= 400) {
    const retryAfterMs = parseRetryAfter(res.headers['retry-after'], Date.now());
    throw new HttpStatusError({ status: res.statusCode, body: text, url: redactSecrets(url), method, retryAfterMs });
  }
  return { status: res.statusCode, headers: res.headers, body: parseBody(text, res.headers['content-type'], method, url) };
}

function parseBody(text: string, contentType: string | string[] | undefined, method: string, url: string): unknown {
  if (text === '') return undefined;
  if (!JSON_MEDIA_TYPE.test(String(contentType))) return text;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(`${method} ${redactSecrets(url)}: the response is not valid JSON (${(error as Error).message})`, { cause: error });
  }
}
