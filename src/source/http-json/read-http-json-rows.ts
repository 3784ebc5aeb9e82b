import type { ZodType } from 'zod';
import { SourceError } from '../../errors/source-error.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { createHttpAgent } from '../../http/create-http-agent.ts';
import { DEFAULT_HTTP_SETTINGS } from '../../http/http-settings.ts';
import type { HttpSettings } from '../../http/http-settings.ts';
import { parseLinkHeader } from '../../http/parse-link-header.ts';
import { requestJson } from '../../http/request-json.ts';
import type { JsonResponse } from '../../http/request-json.ts';
import { sendWithRetry } from '../../http/send-with-retry.ts';
import type { RetryInfo } from '../../http/send-with-retry.ts';
import type { QuarantinedRow } from '../quarantined-row.ts';
import type { HttpJsonPaging } from './http-json-paging.ts';
import { HighWaterMark } from '../high-water-mark.ts';
import { cursorOfRow } from '../cursor-of-row.ts';
import type { HttpJsonIncremental } from './http-json-incremental.ts';
import { PipelineError } from '../../errors/pipeline-error.ts';
import type { SourceRow } from '../source-row.ts';

/** What {@link readHttpJsonRows} needs from an `HttpJsonSource`. */
export interface HttpJsonReadSpec<Row> {
  readonly paging: HttpJsonPaging;
  readonly items: (body: unknown) => unknown[];
  readonly row: ZodType<Row>;
  /** See `HttpJsonSource.singleFullPage`. @defaultValue 'fail' */
  readonly singleFullPage?: 'fail' | 'accept';
  /** See `HttpJsonSource.expectFields`. @defaultValue none */
  readonly expectFields?: readonly string[];
  /**
   * An incremental source's cursor: a full first page with no way on is confirmed by asking
   * for what changed since that page's greatest cursor (see `HttpJsonSource.singleFullPage`).
   */
  readonly incremental?: Pick<HttpJsonIncremental<Row>, 'param' | 'cursor' | 'type'>;
}

/** The page size the paging asks for, where the pipeline declares one (`limit`, `perPage`). */
function declaredPageSize(paging: HttpJsonPaging): number | undefined {
  return paging.style === 'cursor' ? paging.limit : paging.perPage;
}

/** Deployment side of one read: headers, HTTP settings, and hooks for logs and tests. */
export interface HttpJsonReadOptions {
  /** Sent with every request, for example `authorization` (from `IDEM_SOURCES`). @defaultValue none */
  readonly headers?: Readonly<Record<string, string>>;
  /** The undici agent's timeouts and the retry policy. @defaultValue `DEFAULT_HTTP_SETTINGS` */
  readonly http?: HttpSettings;
  /** Called (and awaited) before the wait for another attempt at the page `url`. */
  readonly onRetry?: (url: string, info: RetryInfo) => void | Promise<void>;
  /** Waits `ms` between attempts. @defaultValue `setTimeout` from `node:timers/promises` */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Streams a paged JSON API's items as validated rows: GET one page, yield its items, and only
 * when the consumer asks for more, GET the next. Memory stays flat in the number of pages (one
 * page at a time); every response body is read to its end (see `requestJson`).
 *
 * Each request goes through `sendWithRetry` on one undici agent (`createHttpAgent`), so timeouts
 * and retries are those of the post stage: network errors, timeouts, 408, 429 and 5xx are
 * retried with backoff and `Retry-After`; a GET changes nothing, so an unknown outcome is
 * retried too. The agent is closed when the stream ends, fails or is abandoned.
 *
 * `SourceRow.line` is the item's 1-based index in the whole stream. An item `spec.row` rejects
 * goes to `quarantine` with the page's URL, that index, the field and the rule.
 *
 * @param url - the first page's absolute URL (base URL + path); the paging style's parameters
 *   are added to its query.
 * @throws SourceError naming the page's URL when a request fails for good (the reason and the
 *   attempts made, the `HttpRequestFailedError` as `cause`), when a body is not JSON or
 *   `spec.items` finds no array in it, when the cursor field holds something other than a
 *   string, number or null, when paging would not advance (the same cursor or next link again,
 *   or a page that starts with the previous page's first item), or when a next link leaves the
 *   first URL's origin.
 * @throws UsageError when the first page is full (as many items as the declared `limit` or
 *   `perPage`) and gives no next cursor or link, unless `spec.singleFullPage` is `'accept'`:
 *   before any of its items is handed on.
 */
export async function* readHttpJsonRows<Row>(
  url: string,
  spec: HttpJsonReadSpec<Row>,
  quarantine: (row: QuarantinedRow) => Promise<void>,
  options: HttpJsonReadOptions = {},
): AsyncGenerator<SourceRow<Row>> {
  const http = options.http ?? DEFAULT_HTTP_SETTINGS;
  const { paging } = spec;
  const origin = new URL(url).origin;
  let pageUrl: string | undefined = firstPageUrl(url, paging);
  let pageNumber = paging.style === 'page-number' ? (paging.firstPage ?? 1) : 0;
  let sentCursor: string | undefined;
  let previousFirstItem: string | undefined;
  let index = 0;
  // The expected fields no item has carried yet, and the fields the items do carry (collected
  // only while one is still missing).
  const unseen = new Set(spec.expectFields ?? []);
  const seen = new Set<string>();
  const agent = createHttpAgent(http);
  try {
    while (pageUrl !== undefined) {
      const requested: string = pageUrl;
      const response = await getPage(agent, requested, http, options);
      const items = pageItems(requested, response, spec.items);

      // The next page is worked out before this page's items are handed on, so a bad paging
      // answer fails the run now rather than after the stage has done work with them.
      pageUrl = undefined;
      switch (paging.style) {
        case 'cursor': {
          const cursor = readCursor(requested, response.body, paging.cursorField);
          if (cursor !== undefined) {
            if (cursor === sentCursor) throw new SourceError(requested, undefined, `the API returned the cursor it was sent (${JSON.stringify(cursor)}): paging would never end`);
            sentCursor = cursor;
            pageUrl = withParams(url, pagingParams(paging), { [paging.cursorParam]: cursor });
          }
          break;
        }
        case 'page-number': {
          const first = items.length > 0 ? JSON.stringify(items[0]) : undefined;
          if (first !== undefined && first === previousFirstItem) {
            throw new SourceError(requested, undefined, `page ${pageNumber} starts with the same item as the page before: does the API read "${paging.pageParam}"?`);
          }
          previousFirstItem = first;
          if (items.length >= paging.perPage) {
            pageNumber += 1;
            pageUrl = withParams(url, { [paging.pageParam]: String(pageNumber), [paging.perPageParam]: String(paging.perPage) });
          }
          break;
        }
        case 'link-header': {
          const next = parseLinkHeader(response.headers.link).find((link) => link.rel.includes('next'));
          if (next !== undefined) {
            const target = resolveLink(requested, next.target);
            if (new URL(target).origin !== origin) {
              throw new SourceError(requested, undefined, `the next link leaves ${origin} (${target}): not followed, the request headers may carry credentials`);
            }
            if (target === requested) throw new SourceError(requested, undefined, 'the next link points to the same page: paging would never end');
            pageUrl = target;
          }
          break;
        }
      }
      // A first page as full as asked for, with no way on: most likely paging that does not
      // work (a path without the API's page parameter), not a source of exactly one page. An
      // incremental source asks for what changed since the page's greatest cursor to tell.
      const pageSize = declaredPageSize(paging);
      const fullAndAlone = pageUrl === undefined && index === 0 && paging.style !== 'page-number' && pageSize !== undefined && items.length >= pageSize && spec.singleFullPage !== 'accept';
      if (fullAndAlone && !(spec.incremental && (await endsAtThisPage(agent, requested, items, spec, spec.incremental, http, options)))) {
        throw new UsageError(
          `${requested}: the first page holds ${items.length} items, as many as the page size asked for (${pageSize}), and gives no ${paging.style === 'cursor' ? `next cursor in "${paging.cursorField}"` : 'next link (Link: rel="next")'}: ` +
            `the rest of the source would be left unread. Check that the path asks the API for paging (a json-server path needs its page parameter for Link headers); ` +
            `if the source really ends after one full page, declare singleFullPage: 'accept'`,
        );
      }

      for (const item of items) {
        index += 1;
        if (unseen.size > 0 && item !== null && typeof item === 'object') {
          for (const field of Object.keys(item)) seen.add(field);
          for (const field of unseen) if (seen.has(field)) unseen.delete(field);
        }
        const parsed = spec.row.safeParse(item);
        if (parsed.success) {
          yield { line: index, value: parsed.data };
        } else {
          const issue = parsed.error.issues[0]!;
          const field = issue.path.join('.');
          const got = JSON.stringify(valueAt(item, issue.path) ?? null);
          await quarantine({ source: requested, line: index, reason: `${field || '(item)'}: ${issue.message} (got ${got})`, raw: JSON.stringify(item) });
        }
      }
    }
    if (unseen.size > 0 && index > 0) {
      const missing = [...unseen].map((field) => JSON.stringify(field)).join(', ');
      throw new PipelineError(
        `${url}: no item of the ${index} read has the field${unseen.size > 1 ? 's' : ''} ${missing}, which the pipeline reads (a typo in its fields or columns, or a field the API renamed); ` +
          `the items have: ${[...seen].join(', ') || 'no fields'}. A field absent from some items only is read as null`,
      );
    }
  } finally {
    await agent.close();
  }
}

/**
 * Whether a full first page with no next page is really the whole read of an incremental source:
 * asks for what changed since the page's greatest cursor (the mark is inclusive) and finds
 * nothing newer. An API whose paging does not work answers the items past that cursor.
 */
async function endsAtThisPage<Row>(
  agent: ReturnType<typeof createHttpAgent>,
  requested: string,
  items: readonly unknown[],
  spec: HttpJsonReadSpec<Row>,
  incremental: NonNullable<HttpJsonReadSpec<Row>['incremental']>,
  http: HttpSettings,
  options: HttpJsonReadOptions,
): Promise<boolean> {
  const greatestOf = (page: readonly unknown[], from: string | undefined, url: string): string | undefined => {
    const mark = new HighWaterMark(incremental.type, from);
    for (const [i, item] of page.entries()) {
      const parsed = spec.row.safeParse(item);
      // A rejected item is quarantined by the read itself; it has no cursor to go by here.
      if (parsed.success) mark.see(cursorOfRow(incremental, parsed.data, `${url}: item ${i + 1}`), `${url}: item ${i + 1}`);
    }
    return mark.value;
  };
  const last = greatestOf(items, undefined, requested);
  if (last === undefined) return false;
  const confirmUrl = withParams(requested, { [incremental.param]: last });
  const confirm = pageItems(confirmUrl, await getPage(agent, confirmUrl, http, options), spec.items);
  return greatestOf(confirm, last, confirmUrl) === last;
}

async function getPage(agent: ReturnType<typeof createHttpAgent>, url: string, http: HttpSettings, options: HttpJsonReadOptions): Promise<JsonResponse> {
  try {
    return await sendWithRetry(() => requestJson(agent, { method: 'GET', url, ...(options.headers ? { headers: options.headers } : {}) }), {
      settings: http.retry,
      onRetry: (info) => options.onRetry?.(url, info),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
  } catch (error) {
    throw new SourceError(url, undefined, (error as Error).message, error);
  }
}

function pageItems(url: string, response: JsonResponse, items: (body: unknown) => unknown[]): unknown[] {
  const { body } = response;
  if (body === null || typeof body !== 'object') {
    const type = String(response.headers['content-type'] ?? 'none');
    throw new SourceError(url, undefined, `expected a JSON body (got ${body === undefined ? 'an empty body' : `content-type ${type}`})`);
  }
  let found: unknown;
  try {
    found = items(body);
  } catch (error) {
    throw new SourceError(url, undefined, `the pipeline's items(body) failed: ${(error as Error).message}`, error);
  }
  if (!Array.isArray(found)) throw new SourceError(url, undefined, `the pipeline's items(body) must return an array (got ${found === null ? 'null' : typeof found})`);
  return found;
}

/** The next cursor, or undefined at the end (null, missing or ''). */
function readCursor(url: string, body: unknown, field: string): string | undefined {
  const value = valueAt(body, field.split('.'));
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new SourceError(url, undefined, `the cursor field ${field} must hold a string, a number or null (got ${JSON.stringify(value)})`);
}

function firstPageUrl(url: string, paging: HttpJsonPaging): string {
  if (paging.style === 'page-number') {
    return withParams(url, { [paging.pageParam]: String(paging.firstPage ?? 1), [paging.perPageParam]: String(paging.perPage) });
  }
  return withParams(url, pagingParams(paging));
}

/** The page-size parameter of cursor and link-header paging, when declared. */
function pagingParams(paging: HttpJsonPaging): Record<string, string> {
  if (paging.style === 'cursor' && paging.limitParam !== undefined) return { [paging.limitParam]: String(paging.limit) };
  if (paging.style === 'link-header' && paging.perPageParam !== undefined) return { [paging.perPageParam]: String(paging.perPage) };
  return {};
}

/** `url` with these query parameters set (replacing any of the same name in the path's own query). */
function withParams(url: string, ...params: Record<string, string>[]): string {
  const out = new URL(url);
  for (const group of params) for (const [name, value] of Object.entries(group)) out.searchParams.set(name, value);
  return out.href;
}

/** A link target resolved against the page it came with (RFC 8288 §3.1, RFC 3986 §5). */
function resolveLink(pageUrl: string, target: string): string {
  try {
    return new URL(target, pageUrl).href;
  } catch {
    throw new SourceError(pageUrl, undefined, `the next link is not a URI reference (got ${JSON.stringify(target)})`);
  }
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
