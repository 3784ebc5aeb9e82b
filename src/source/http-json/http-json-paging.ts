/**
 * Cursor paging: each response carries the next page's cursor in a body field, and the next
 * request sends it back as a query parameter. A null, missing or empty cursor ends the stream;
 * the first request sends none.
 * @example { style: 'cursor', cursorField: 'next_cursor', cursorParam: 'cursor', limitParam: 'limit', limit: 500 }
 */
export interface CursorPaging {
  readonly style: 'cursor';
  /**
   * The body field that holds the next cursor (a string or a number), as a dot path into the
   * parsed JSON: `next_cursor`, or `meta.next_cursor` for a nested one.
   */
  readonly cursorField: string;
  /** The query parameter the cursor is sent back in, for example `cursor`. */
  readonly cursorParam: string;
  /** The query parameter of the page size; give it with `limit`, or neither for the API's default. */
  readonly limitParam?: string;
  /** Items per page to ask for. */
  readonly limit?: number;
}

/**
 * Page-number paging: `?<pageParam>=N&<perPageParam>=M` for N = `firstPage`, `firstPage + 1`, …
 * until a page holds fewer than `perPage` items (an empty page included). `perPage` must not
 * exceed the API's own maximum: an API that silently serves fewer would make the first page
 * look like the last.
 * @example { style: 'page-number', pageParam: 'page', perPageParam: 'per_page', perPage: 100 }
 */
export interface PageNumberPaging {
  readonly style: 'page-number';
  readonly pageParam: string;
  readonly perPageParam: string;
  /** Items per page to ask for, an integer ≥ 1. */
  readonly perPage: number;
  /** The number of the first page. @defaultValue 1 */
  readonly firstPage?: number;
}

/**
 * `Link` header paging (RFC 8288, as GitHub's API does it): the next page is the target of the
 * response's `Link: <…>; rel="next"`, resolved against the page's URL (RFC 3986 §5); no such link
 * ends the stream. Only the first request is built here (optionally with a page size); later
 * ones follow the server's links as given, and only within the origin of the configured base
 * URL, because the request headers may carry credentials.
 * @example { style: 'link-header', perPageParam: 'per_page', perPage: 100 }
 */
export interface LinkHeaderPaging {
  readonly style: 'link-header';
  /** The query parameter of the page size on the first request; give it with `perPage`, or neither. */
  readonly perPageParam?: string;
  readonly perPage?: number;
}

/** How an HTTP JSON source pages through its API: one of the three styles. */
export type HttpJsonPaging = CursorPaging | PageNumberPaging | LinkHeaderPaging;
