import type { OutgoingHttpHeaders } from 'node:http';
import { DateTime } from 'luxon';
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
 * One page of the catalogue, in the style the query asks for:
 * - `?style=cursor&limit=N&cursor=C` → `{ data, next_cursor }`. The cursor is opaque
 *   (base64url of the last product served) and keyset-based: the next page starts after that
 *   product, so a catalogue changed between pages neither repeats nor skips the products that
 *   stayed. `next_cursor` is null on the last page. No cursor (or an empty one) = the first page.
 * - `?page=N&per_page=M` (or `style=page`) → `{ data }`, pages counted from 1; a page past the
 *   end is empty.
 * - `?style=link&page=N&per_page=M` → `{ data }` and an RFC 8288 `Link` header with `rel="next"`
 *   (absent on the last page) and `rel="last"`, absolute when `origin` is known.
 *
 * Products come sorted by `stock_code`, or with `sort=updated_at` by `updated_at` then
 * `stock_code` (an `updated_at` that is not an instant sorts last). `updated_since=T` (an ISO
 * 8601 date and time with its offset) keeps the products whose `updated_at` is at or after T,
 * sorted by `updated_at`: what an incremental read asks for.
 *
 * Sizes default to 100 and may be 1 to 1000. Anything else answers 400
 * `{ error: "validation_failed", details }`.
 *
 * @param origin - `http://host:port` the client used (from its `Host` header), for absolute links;
 *   undefined gives relative references, which RFC 8288 §3.1 allows too.
 */
export function pageSandboxProducts(catalogue: readonly SandboxProduct[], url: URL, origin: string | undefined): SandboxProductsPage {
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

  const since = query.get('updated_since');
  const sinceMs = since === null ? undefined : instantMs(since);
  if (since !== null && sinceMs === Infinity) details.push({ field: 'updated_since', message: 'must be an ISO 8601 date and time with its offset, such as 2011-12-09T12:50:00Z' });
  const sort = query.get('sort') ?? (since === null ? 'stock_code' : 'updated_at');
  if (sort !== 'stock_code' && sort !== 'updated_at') details.push({ field: 'sort', message: 'must be "stock_code" or "updated_at"' });
  const order = sort === 'updated_at' ? byUpdatedAt : byStockCode;
  const listed = sort === 'updated_at' ? [...catalogue].sort(order) : catalogue;
  const products = sinceMs === undefined ? listed : listed.filter((p) => updatedMs(p) >= sinceMs);

  if (style === 'cursor') {
    const limit = integer('limit', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    const cursor = query.get('cursor');
    const after = cursor === null || cursor === '' ? undefined : decodeCursor(cursor);
    if (after === null) details.push({ field: 'cursor', message: 'is not a cursor this API issued' });
    if (details.length > 0) return { status: 400, body: { error: 'validation_failed', details } };
    const start = after === undefined || after === null ? 0 : firstAfter(products, after, order);
    const data = products.slice(start, start + limit);
    const more = start + limit < products.length;
    return { status: 200, body: { data, next_cursor: more ? encodeCursor(data.at(-1)!) : null } };
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

/** The cursor of a page that ends with `last`: its code and `updated_at`, so either order can continue after it. */
function encodeCursor(last: Readonly<SandboxProduct>): string {
  return encodeCursorOf({ after: last.stock_code, at: last.updated_at ?? null });
}

function encodeCursorOf(position: CursorPosition): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** Where a cursor continues: after the product with this code (and this `updated_at`). */
interface CursorPosition {
  readonly after: string;
  readonly at: unknown;
}

/** The position a cursor continues after, or null for anything this API did not issue. */
function decodeCursor(cursor: string): CursorPosition | null {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorPosition> | null;
    const position = { after: decoded?.after, at: decoded?.at ?? null };
    return typeof position.after === 'string' && encodeCursorOf(position as CursorPosition) === cursor ? (position as CursorPosition) : null;
  } catch {
    return null;
  }
}

/** An ISO 8601 date and time with its offset in ms since the epoch; Infinity for anything else (sorts last). */
function instantMs(value: unknown): number {
  if (typeof value !== 'string' || !/T\d{2}:\d{2}.*(Z|[+-]\d{2}(:?\d{2})?)$/.test(value)) return Infinity;
  const instant = DateTime.fromISO(value, { setZone: true });
  return instant.isValid ? instant.toMillis() : Infinity;
}

/** A product's place in a listing: its code and `updated_at`. */
interface Placed {
  readonly stock_code: string;
  readonly updated_at?: unknown;
}

type Order = (a: Placed, b: Placed) => number;

const byStockCode: Order = (a, b) => (a.stock_code < b.stock_code ? -1 : a.stock_code > b.stock_code ? 1 : 0);

/** Each product's `updated_at` in ms, parsed once: the state hands out the same frozen products until they change. */
const updatedMsOf = new WeakMap<Placed, number>();

function updatedMs(product: Placed): number {
  let ms = updatedMsOf.get(product);
  if (ms === undefined) updatedMsOf.set(product, (ms = instantMs(product.updated_at)));
  return ms;
}

const byUpdatedAt: Order = (a, b) => {
  const [x, y] = [updatedMs(a), updatedMs(b)];
  return x !== y ? (x < y ? -1 : 1) : byStockCode(a, b);
};

/** The index of the first product that sorts after `position` (binary search; the list is sorted by `order`). */
function firstAfter(products: readonly SandboxProduct[], position: CursorPosition, order: Order): number {
  const key = { stock_code: position.after, updated_at: position.at };
  let low = 0;
  let high = products.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (order(products[mid]!, key) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}
