import type { OutgoingHttpHeaders } from 'node:http';
import type { SandboxValidationDetail } from './validate-invoice-body.ts';
import type { SandboxProduct } from './validate-sandbox-products.ts';

/** Items per page when the request names no size. */
const DEFAULT_PAGE_SIZE = 100;
/** The largest page size accepted; a larger one is a 400, never silently cut (a client would take the short page for the last). */
const MAX_PAGE_SIZE = 1000;

/** One `GET /products` answer. */
export interface SandboxProductsPage {
  status: number;
  body: unknown;
  headers?: OutgoingHttpHeaders;
}

/**
 * One page of the catalogue (sorted by `stock_code`), in the style the query asks for:
 * - `?style=cursor&limit=N&cursor=C` → `{ data, next_cursor }`. The cursor is opaque
 *   (base64url of the last code served) and keyset-based: the next page starts after that code,
 *   so a catalogue changed between pages neither repeats nor skips the products that stayed.
 *   `next_cursor` is null on the last page. No cursor (or an empty one) = the first page.
 * - `?page=N&per_page=M` (or `style=page`) → `{ data }`, pages counted from 1; a page past the
 *   end is empty.
 * - `?style=link&page=N&per_page=M` → `{ data }` and an RFC 8288 `Link` header with `rel="next"`
 *   (absent on the last page) and `rel="last"`, absolute when `origin` is known.
 *
 * Sizes default to 100 and may be 1 to 1000. Anything else answers 400
 * `{ error: "validation_failed", details }`.
 *
 * @param origin - `http://host:port` the client used (from its `Host` header), for absolute links;
 *   undefined gives relative references, which RFC 8288 §3.1 allows too.
 */
export function pageSandboxProducts(products: readonly SandboxProduct[], url: URL, origin: string | undefined): SandboxProductsPage {
  const query = url.searchParams;
  const style = query.get('style') ?? 'page';
  const details: SandboxValidationDetail[] = [];
  const integer = (name: string, fallback: number, max: number): number => {
    const text = query.get(name);
    if (text === null) return fallback;
    const value = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
    if (value >= 1 && value <= max) return value;
    details.push({ field: name, message: `must be an integer from 1 to ${max}` });
    return fallback;
  };

  if (style === 'cursor') {
    const limit = integer('limit', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const cursor = query.get('cursor');
    const after = cursor === null || cursor === '' ? undefined : decodeCursor(cursor);
    if (after === null) details.push({ field: 'cursor', message: 'is not a cursor this API issued' });
    if (details.length > 0) return { status: 400, body: { error: 'validation_failed', details } };
    const start = after === undefined || after === null ? 0 : firstAfter(products, after);
    const data = products.slice(start, start + limit);
    const more = start + limit < products.length;
    return { status: 200, body: { data, next_cursor: more ? encodeCursor(data.at(-1)!.stock_code) : null } };
  }
  if (style !== 'page' && style !== 'link') {
    return { status: 400, body: { error: 'validation_failed', details: [{ field: 'style', message: 'must be "cursor", "page" or "link"' }] } };
  }
  const page = integer('page', 1, Number.MAX_SAFE_INTEGER);
  const perPage = integer('per_page', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  if (details.length > 0) return { status: 400, body: { error: 'validation_failed', details } };
  const data = products.slice((page - 1) * perPage, page * perPage);
  if (style === 'page') return { status: 200, body: { data } };

  const target = (n: number): string => {
    const next = new URL(url);
    next.searchParams.set('page', String(n));
    return `${origin ?? ''}${next.pathname}${next.search}`;
  };
  const lastPage = Math.max(1, Math.ceil(products.length / perPage));
  const links = [...(page < lastPage ? [`<${target(page + 1)}>; rel="next"`] : []), `<${target(lastPage)}>; rel="last"`];
  return { status: 200, body: { data }, headers: { link: links.join(', ') } };
}

function encodeCursor(stockCode: string): string {
  return Buffer.from(JSON.stringify({ after: stockCode }), 'utf8').toString('base64url');
}

/** The code a cursor continues after, or null for anything this API did not issue. */
function decodeCursor(cursor: string): string | null {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const after = (decoded as { after?: unknown } | null)?.after;
    return typeof after === 'string' && encodeCursor(after) === cursor ? after : null;
  } catch {
    return null;
  }
}

/** The index of the first product whose code sorts after `code` (binary search; the list is sorted). */
function firstAfter(products: readonly SandboxProduct[], code: string): number {
  let low = 0;
  let high = products.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (products[mid]!.stock_code <= code) low = mid + 1;
    else high = mid;
  }
  return low;
}
