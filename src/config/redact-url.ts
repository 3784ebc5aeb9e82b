import { redactSecrets } from '../text/redact-secrets.ts';

/**
 * A URL fit for logs: its user info (user and password) and secret query parameters are
 * replaced by `***` (see `redactSecrets`). Everything up to the last `@` counts as the user
 * info, so a password with an unencoded `@` or `/` is hidden in full too (at worst the log hides
 * more than the password, never less).
 */
export function redactUrl(url: string): string {
  return redactSecrets(url);
}
