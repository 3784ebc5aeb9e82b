/**
 * The user info of a URL (`scheme://user:password@`), up to the last `@` before whitespace or a
 * quote; group 2 is the user name and its colon, when there is a password after it.
 */
const URL_USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s"'<>`:/@]*:)?[^\s"'<>`]*@/gi;

/**
 * Query parameters whose values are shown (case-insensitive): the paging, ordering, filtering and
 * formatting parameters of ordinary APIs, and the connection settings of database URLs, which
 * carry no credential. The value of every other
 * query parameter of every URL is replaced by `***`, since a credential can hide under any name
 * (`private_token` at GitLab, `X-Amz-Signature` in AWS pre-signed URLs, `subscription-key` at
 * Azure API Management, `hapikey` at HubSpot).
 */
export const HARMLESS_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  'page', 'per_page', 'perpage', 'page_size', 'pagesize', 'size', 'limit', 'offset', 'count', 'cursor', 'after', 'before',
  'since', 'until', 'from', 'to', 'start', 'end', 'date', 'updated_since', 'updated_after', 'modified_since', 'changed_since',
  'sort', 'sort_by', 'order', 'order_by', 'orderby', 'direction', 'dir', 'fields', 'include', 'expand', 'embed',
  'q', 'search', 'filter', 'status', 'type', 'style', 'format', 'lang', 'locale', 'version',
  // json-server's paging and ordering
  '_page', '_limit', '_start', '_end', '_sort', '_order',
  // database URL settings (`DATABASE_URL`, `IDEM_SOURCES`)
  'encrypt', 'trustservercertificate', 'stagingload', 'sslmode', 'ssl', 'charset', 'timezone', 'connect_timeout', 'application_name',
]);

/**
 * A query parameter with a value: `?` or `&`, its name, `=`, its value (up to `&`, `#`,
 * whitespace or a quote; a colon right before whitespace or the end is the prose's, as in
 * `POST https://…?k=v: 500`, and stays).
 */
const QUERY_PARAMETER = /([?&])([^=&#?\s"'<>`]+)=([^&#\s"'<>`]+?)(?=:?(?:[&#\s"'<>`]|$))/g;

function nameOf(encoded: string): string {
  try {
    return decodeURIComponent(encoded).toLowerCase();
  } catch {
    return encoded.toLowerCase();
  }
}

/**
 * Text with the secrets of every URL in it replaced by `***`: the password (`http://user:pw@host`
 * → `http://user:***@host`; the user name stays, to tell which account), a user info without a
 * password, which may be a token (`https://TOKEN@host` → `https://***@host`), and the value of
 * every query parameter not in {@link HARMLESS_QUERY_PARAMETERS} (`?page=2&api_key=k` →
 * `?page=2&api_key=***`). At worst it hides more than the secret (a path segment with an `@`, a
 * `&name=value` in prose), never less. Used wherever text leaves idem: log
 * lines, error messages, `job_runs.error`, the ledger's `last_error`, quarantine rows and every
 * command's output.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(URL_USER_INFO, '$1$2***@')
    .replace(QUERY_PARAMETER, (whole, separator: string, name: string) => (HARMLESS_QUERY_PARAMETERS.has(nameOf(name)) ? whole : `${separator}${name}=***`));
}
