import type { ZodType } from 'zod';
import type { SourceDeclaration } from '../source-kind.ts';
import { httpSettingsProblem, type HttpSettingsInput } from '../../http/http-settings.ts';
import type { HttpJsonIncremental } from './http-json-incremental.ts';
import type { HttpJsonPaging } from './http-json-paging.ts';

/**
 * A paged JSON HTTP API source, read with GET requests through undici with the same connection
 * pool, timeouts and retry rules as the post stage (a GET is safe to retry, whatever the
 * failure's outcome). Pages are read one at a time as the stage consumes their items, so memory
 * stays flat in the number of pages.
 *
 * The base URL and request headers are deployment configuration, never code: `IDEM_SOURCES`, a
 * JSON object keyed by pipeline name, for example
 * `{"online-retail-products":{"url":"https://api.example.com","headers":{"authorization":"Bearer …"}}}`.
 * A run reads `<url><path>`.
 *
 * Each item's `SourceRow.line` is its 1-based index in the whole stream (the first item of the
 * first page is 1), what the quarantine and duplicate-key errors name as its "line".
 */
export interface HttpJsonSource<Row> extends SourceDeclaration<Row> {
  readonly kind: 'http-json';
  /**
   * Appended to the base URL: a path starting with `/`, with any fixed query, for example
   * `/products?style=cursor`; or a function of the business date (`YYYY-MM-DD`), for an API that
   * can answer "as of" a day, for example ``d => `/products?as_of=${d}` ``.
   */
  readonly path: string | ((businessDate: string) => string);
  /** How the API pages; see {@link HttpJsonPaging}. */
  readonly paging: HttpJsonPaging;
  /**
   * Where the items are in a page's parsed JSON body, for example
   * `(body) => (body as { data: unknown[] }).data`. A page whose body is not JSON, or for which
   * this throws or returns something other than an array, fails the run, naming the URL.
   */
  readonly items: (body: unknown) => unknown[];
  /**
   * Validates and converts one item. An item it rejects goes to the quarantine with the page's
   * URL, the item's index (as `line`), the field and the rule (the zod issue).
   * @defaultValue derived from the pipeline's `columns` and `key` by `definePipeline` (JSON
   * numbers for integer, decimal and float columns)
   */
  readonly row?: ZodType<Row>;
  /**
   * Item fields that at least one item of every read must have. A read (of one item or more) in
   * which no item has one of them fails with exit 2 before anything is upserted, naming the field
   * and listing the fields the items do have: a typo in a field name, or a field the API renamed,
   * would otherwise read as null in every row. A field absent from some items only is read as
   * null. @defaultValue with a row derived from the columns (a pipeline with a `key` and no
   * `row`): the key and every column's field; else none
   */
  readonly expectFields?: readonly string[];
  /**
   * What a quarantined item does to the run: `quarantine` loads the rest; `fail` reads every page
   * (so every bad item is quarantined at once) and then fails the run before anything is
   * upserted. @defaultValue 'fail'
   */
  readonly invalidRows: 'quarantine' | 'fail';
  /**
   * A read whose first page is full (as many items as the declared page size: `limit` of cursor
   * paging, `perPage` of link-header paging) and gives no next cursor or link. `fail`: the run
   * fails with exit 2 before anything is staged, because that is what paging that does not work
   * looks like (a json-server path without its `_page` parameter serves the first `_limit` items
   * and no `Link` header), and loading a page of a catalogue with exit 0 is wrong data. `accept`:
   * for an API that can end after exactly one full page. Page-number paging always asks for the
   * next page after a full one, so it never applies there; nor where no page size is declared.
   * An `incremental` source first asks for what changed since the page's greatest cursor: when
   * that answers nothing newer, the page was the whole change (the changes since the mark filled
   * exactly one page) and the read goes on.
   * @defaultValue 'fail'
   */
  readonly singleFullPage: 'fail' | 'accept';
  /**
   * Timeouts and retries, checked by `HttpSettingsSchema` when the pipeline module is imported;
   * the pipeline's `IDEM_SOURCES` entry may override them (`http`). @defaultValue `DEFAULT_HTTP_SETTINGS`
   */
  readonly http?: HttpSettingsInput;
  /**
   * Read only what changed since the last completed run: each request sends the high-water mark
   * in `incremental.param`, and the mark moves to the greatest cursor read when the run
   * completes (see {@link HttpJsonIncremental}; docs/writing-a-pipeline.md, "Incremental HTTP
   * sources", for run keys and reruns). @defaultValue none: every run reads everything
   */
  readonly incremental?: HttpJsonIncremental<Row>;
}

/**
 * Builds an {@link HttpJsonSource} with its defaults, checking the declaration when the pipeline
 * module is imported (so `idem pipelines` reports a mistake before any run).
 *
 * @example
 * ```ts
 * source: httpJsonSource({
 *   path: '/products',
 *   paging: { style: 'cursor', cursorField: 'next_cursor', cursorParam: 'cursor', limitParam: 'limit', limit: 500 },
 *   items: (body) => (body as { data: unknown[] }).data,
 *   row: Product,
 * })
 * ```
 * @throws TypeError naming the field and the rule it breaks.
 */
export function httpJsonSource<Row = Record<string, unknown>>(
  spec: Omit<HttpJsonSource<Row>, 'kind' | 'invalidRows' | 'singleFullPage'> & Partial<Pick<HttpJsonSource<Row>, 'invalidRows' | 'singleFullPage'>>,
): HttpJsonSource<Row> {
  const check = (ok: boolean, field: string, rule: string, value: unknown): void => {
    if (!ok) throw new TypeError(`httpJsonSource ${field} ${rule} (got ${JSON.stringify(value)})`);
  };
  const name = (value: unknown): boolean => typeof value === 'string' && value !== '';
  const size = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 1;
  if (typeof spec.path === 'string') check(spec.path.startsWith('/'), 'path', 'must start with "/"', spec.path);
  else check(typeof spec.path === 'function', 'path', 'must be a string or a function of the business date', typeof spec.path);
  const paging = spec.paging;
  switch (paging.style) {
    case 'cursor':
      check(name(paging.cursorField), 'paging.cursorField', 'must be a non-empty field name', paging.cursorField);
      check(name(paging.cursorParam), 'paging.cursorParam', 'must be a non-empty parameter name', paging.cursorParam);
      check((paging.limitParam === undefined) === (paging.limit === undefined), 'paging.limit', 'must be given with limitParam, or neither', paging.limit);
      if (paging.limitParam !== undefined) {
        check(name(paging.limitParam), 'paging.limitParam', 'must be a non-empty parameter name', paging.limitParam);
        check(size(paging.limit), 'paging.limit', 'must be an integer ≥ 1', paging.limit);
      }
      break;
    case 'page-number':
      check(name(paging.pageParam), 'paging.pageParam', 'must be a non-empty parameter name', paging.pageParam);
      check(name(paging.perPageParam), 'paging.perPageParam', 'must be a non-empty parameter name', paging.perPageParam);
      check(size(paging.perPage), 'paging.perPage', 'must be an integer ≥ 1', paging.perPage);
      check(paging.firstPage === undefined || (Number.isInteger(paging.firstPage) && paging.firstPage >= 0), 'paging.firstPage', 'must be an integer ≥ 0', paging.firstPage);
      break;
    case 'link-header':
      check((paging.perPageParam === undefined) === (paging.perPage === undefined), 'paging.perPage', 'must be given with perPageParam, or neither', paging.perPage);
      if (paging.perPageParam !== undefined) {
        check(name(paging.perPageParam), 'paging.perPageParam', 'must be a non-empty parameter name', paging.perPageParam);
        check(size(paging.perPage), 'paging.perPage', 'must be an integer ≥ 1', paging.perPage);
      }
      break;
    default:
      check(false, 'paging.style', 'must be "cursor", "page-number" or "link-header"', (paging as { style?: unknown }).style);
  }
  check(typeof spec.items === 'function', 'items', 'must be a function of the response body', typeof spec.items);
  if (spec.expectFields !== undefined) check(Array.isArray(spec.expectFields) && spec.expectFields.every(name), 'expectFields', 'must be a list of field names', spec.expectFields);
  if (spec.incremental !== undefined) {
    const { param, cursor, type } = spec.incremental;
    check(name(param), 'incremental.param', 'must be a non-empty parameter name', param);
    check(typeof cursor === 'function', 'incremental.cursor', 'must be a function of the validated row', typeof cursor);
    check(type === 'instant' || type === 'integer', 'incremental.type', 'must be "instant" or "integer"', type);
  }
  const httpProblem = httpSettingsProblem(spec.http ?? {});
  if (httpProblem !== undefined) throw new TypeError(`httpJsonSource ${httpProblem}`);
  return Object.freeze({ kind: 'http-json' as const, invalidRows: 'fail' as const, singleFullPage: 'fail' as const, ...spec });
}
