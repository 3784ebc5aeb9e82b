/**
 * Why a base URL cannot be joined with a request path, or undefined when it can. A base with a
 * fragment (`https://api.example.com/v2#x`) cannot: a fragment is never sent, and whatever is
 * pasted after it would not be either (WHATWG URL Standard, "fragment state").
 */
export function unjoinableBaseUrlReason(base: string): string | undefined {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return 'it is not an absolute URL';
  }
  if (url.hash !== '' || base.includes('#')) return `it has a fragment ("${url.hash || '#'}"), which is never sent, so no request path can follow it`;
  return undefined;
}

/**
 * The URL of a request to `path` at the API whose base URL is `base`, joined as a person reads
 * them: the base's path and the request's path with exactly one slash between them, and the
 * base's query parameters kept on every request, before the request's own (`https://h/v2/?api_key=K`
 * and `/invoices?page=2` give `https://h/v2/invoices?api_key=K&page=2`). The base's user info
 * stays. Both are parsed and serialised by WHATWG `URL`, so a character that must be
 * percent-encoded is, and one already encoded is left as it is.
 *
 * Not `new URL(path, base)`: RFC 3986 resolution drops the base's last path segment (`/v2` +
 * `invoices`) and its query, and replaces its whole path when `path` starts with `/`.
 *
 * @param base an absolute http(s) URL, with or without a trailing slash or a query; see
 *   {@link unjoinableBaseUrlReason} for the ones refused at load.
 * @param path the request's path, usually from the pipeline's `request()` or `lookup.path()`,
 *   with or without a leading slash, optionally with a query; an empty path gives the base's path with a trailing slash.
 * @throws TypeError when `base` is not an absolute URL.
 */
export function joinUrl(base: string, path: string): string {
  const { prefix, query } = splitBase(base);
  const queryAt = path.indexOf('?');
  const tail = (queryAt === -1 ? path : path.slice(0, queryAt)).replace(/^\/+/, '');
  const search = [query, queryAt === -1 ? '' : path.slice(queryAt + 1)].filter((part) => part !== '').join('&');
  return new URL(`${tail === '' ? `${prefix}/` : `${prefix}/${tail}`}${search === '' ? '' : `?${search}`}`).href;
}

/** A base URL cut once: everything up to its path without trailing slashes, and its query. */
interface BaseParts {
  readonly prefix: string;
  readonly query: string;
}

/** Bases seen by this process (a few: one per destination), so a request parses one URL, not two. */
const baseParts = new Map<string, BaseParts>();

function splitBase(base: string): BaseParts {
  let parts = baseParts.get(base);
  if (parts === undefined) {
    const url = new URL(base);
    const query = url.search.slice(1);
    url.hash = '';
    url.search = '';
    parts = { prefix: url.href.replace(/\/+$/, ''), query };
    baseParts.set(base, parts);
  }
  return parts;
}
