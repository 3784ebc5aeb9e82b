import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { UsageError } from '../../errors/usage-error.ts';
import { parseLinkHeader } from '../../http/parse-link-header.ts';
import type { HttpJsonPaging } from './http-json-paging.ts';

/** A JSON sample as `idem new` reads it: its items, and where they are in the body. */
export interface JsonSample {
  readonly items: readonly Readonly<Record<string, unknown>>[];
  /** The body's property that holds the items; undefined when the body is the array itself. */
  readonly itemsProperty: string | undefined;
  /** The fields of the items, in order of first appearance. */
  readonly fields: readonly string[];
  /** Where the source reads: the URL's path and query without its paging parameters, or `/<file name>` for a file sample. */
  readonly path: string;
  /** The URL's origin (the `IDEM_SOURCES` base URL); undefined for a file sample. */
  readonly baseUrl: string | undefined;
  /**
   * How the source pages: `page-number` where the URL (or its next link) shows a page parameter
   * and a page size, else `link-header` (with the page size where the URL gives one).
   */
  readonly paging: HttpJsonPaging;
}

/** The most items, and pages, a URL sample reads: enough to see the values a first page lacks, and bounded. */
export const MAX_SAMPLE_ITEMS = 1000;
export const MAX_SAMPLE_PAGES = 20;
/** Query parameters read as a page number and as a page size (json-server, GitHub, common REST APIs). */
const PAGE_PARAMS = ['_page', 'page', 'page_number', 'pageNumber'];
const SIZE_PARAMS = ['_limit', 'limit', 'per_page', 'perPage', 'page_size', 'pageSize', 'size'];

type Items = Record<string, unknown>[];

const isItems = (value: unknown): value is Items =>
  Array.isArray(value) && value.length > 0 && value.every((item) => item !== null && typeof item === 'object' && !Array.isArray(item));

/** The items of a body: the body itself when it is an array of objects, or its first property that is one. */
function itemsOf(body: unknown): { items: Items; itemsProperty: string | undefined } | undefined {
  if (isItems(body)) return { items: body, itemsProperty: undefined };
  if (body === null || typeof body !== 'object') return undefined;
  const itemsProperty = Object.keys(body).find((key) => isItems((body as Record<string, unknown>)[key]));
  return itemsProperty === undefined ? undefined : { items: (body as Record<string, Items>)[itemsProperty]!, itemsProperty };
}

async function getJson(url: string): Promise<{ body: unknown; next: string | undefined }> {
  const response = await request(url, { headers: { accept: 'application/json' } });
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new Error(`HTTP ${response.statusCode}`);
  }
  const next = parseLinkHeader(response.headers.link).find((link) => link.rel.includes('next'));
  return { body: await response.body.json(), next: next && new URL(next.target, url).href };
}

/**
 * Reads a JSON sample from a file or an `http(s)://` URL (GETs with undici). Its items are the
 * body when it is an array, or the first property of the body that is an array of objects. A URL
 * sample follows the API's paging, up to {@link MAX_SAMPLE_ITEMS} items or
 * {@link MAX_SAMPLE_PAGES} pages: each `Link: rel="next"` (within the URL's origin), or, without
 * one, the next page number after a full page where the URL has a page parameter and a page size
 * (`_page` and `_limit`, `page` and `per_page`, …). Those parameters are left out of `path`: they
 * go into `paging`, where the source's full-first-page guard can see them.
 * @throws UsageError naming the sample when it cannot be read, is not JSON, or holds no items.
 */
export async function readJsonSample(location: string): Promise<JsonSample> {
  const isUrl = /^https?:\/\//.test(location);
  let first: ReturnType<typeof itemsOf>;
  const items: Items = [];
  const url = isUrl ? new URL(location) : undefined;
  let pageParam = url && PAGE_PARAMS.find((name) => url.searchParams.has(name));
  const sizeParam = url && SIZE_PARAMS.find((name) => url.searchParams.has(name) && /^\d+$/.test(url.searchParams.get(name)!));
  try {
    if (!url) {
      first = itemsOf(JSON.parse(readFileSync(location, 'utf8')) as unknown);
      items.push(...(first?.items ?? []));
    } else {
      let pageUrl: string | undefined = url.href;
      for (let pages = 0; pageUrl !== undefined && pages < MAX_SAMPLE_PAGES && items.length < MAX_SAMPLE_ITEMS; pages++) {
        const asked: string = pageUrl;
        const { body, next } = await getJson(asked);
        const page = itemsOf(body);
        first ??= page;
        if (!page) break;
        items.push(...page.items);
        pageUrl = undefined;
        if (next !== undefined && new URL(next).origin === url.origin) {
          // The parameter a next link counts up is the page number, when the URL has none of the usual names.
          const nextParams = new URL(next).searchParams;
          pageParam ??= [...nextParams.keys()].find((name) => /^\d+$/.test(nextParams.get(name)!) && nextParams.get(name) !== new URL(asked).searchParams.get(name) && name !== sizeParam);
          pageUrl = next;
        } else if (pageParam !== undefined && sizeParam !== undefined && page.items.length >= Number(url.searchParams.get(sizeParam))) {
          const following = new URL(asked);
          following.searchParams.set(pageParam, String(Number(following.searchParams.get(pageParam) ?? 1) + 1));
          pageUrl = following.href;
        }
      }
    }
  } catch (error) {
    throw new UsageError(`${location}: cannot read the sample as JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!first || items.length === 0) throw new UsageError(`${location}: the sample holds no items: expected an array of objects, or an object with one`);
  const fields = [...new Set(items.flatMap((item) => Object.keys(item)))];
  const name = location.split(/[\\/]/).pop()!.replace(/\.json$/i, '');
  if (!url) return { items, itemsProperty: first.itemsProperty, fields, path: `/${name}`, baseUrl: undefined, paging: { style: 'link-header' } };
  const perPage = sizeParam === undefined ? undefined : Number(url.searchParams.get(sizeParam));
  const firstPage = pageParam === undefined ? undefined : Number(url.searchParams.get(pageParam) ?? 1);
  const paging: HttpJsonPaging =
    pageParam !== undefined && sizeParam !== undefined && perPage! >= 1
      ? { style: 'page-number', pageParam, perPageParam: sizeParam, perPage: perPage!, ...(firstPage !== 1 && Number.isInteger(firstPage) ? { firstPage: firstPage! } : {}) }
      : { style: 'link-header', ...(sizeParam !== undefined && perPage! >= 1 ? { perPageParam: sizeParam, perPage: perPage! } : {}) };
  const query = new URLSearchParams(url.search);
  for (const param of [pageParam, sizeParam]) if (param !== undefined) query.delete(param);
  const search = query.size > 0 ? `?${query}` : '';
  return { items, itemsProperty: first.itemsProperty, fields, path: `${url.pathname}${search}`, baseUrl: url.origin, paging };
}
