/**
 * A database URL fit for logs: the password is replaced by `***`. Everything up to the last `@`
 * counts as the password, so one with an unencoded `@` or `/` is hidden in full too (at worst
 * the log hides more than the password, never less).
 */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:).*@/i, '$1***@');
}
