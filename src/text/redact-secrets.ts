/**
 * The user info of a URL (`scheme://user:password@`), up to the last `@` before whitespace or a
 * quote; group 2 is the user name and its colon, when there is a password after it.
 */
const URL_USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s"'<>`:/@]*:)?[^\s"'<>`]*@/gi;

/**
 * Query parameters that carry credentials by their name (case-insensitive): `token`,
 * `access_token`, `api_key`, `apikey`, `api-key`, `key`, `secret`, `client_secret`, `password`,
 * `pwd`, `auth`, `sig`, `signature`, `code`.
 */
export const SECRET_QUERY_PARAMETERS: readonly string[] = ['token', 'access_token', 'api_key', 'apikey', 'api-key', 'key', 'secret', 'client_secret', 'password', 'pwd', 'auth', 'sig', 'signature', 'code'];

const SECRET_QUERY = new RegExp(`([?&](?:${SECRET_QUERY_PARAMETERS.map((p) => p.replace(/-/g, '\\-')).join('|')})=)[^&#\\s"'<>\`]*`, 'gi');

/**
 * Text with the secrets of every URL in it replaced by `***`: the password (`http://user:pw@host`
 * → `http://user:***@host`; the user name stays, to tell which account), a user info without a
 * password, which may be a token (`https://TOKEN@host` → `https://***@host`), and the values of {@link SECRET_QUERY_PARAMETERS}. At worst it hides more
 * than the secret (a path segment with an `@`), never less. Used wherever text leaves idem: log
 * lines, error messages, `job_runs.error`, the ledger's `last_error`, quarantine rows and every
 * command's output.
 */
export function redactSecrets(text: string): string {
  return text.replace(URL_USER_INFO, '$1$2***@').replace(SECRET_QUERY, '$1***');
}
