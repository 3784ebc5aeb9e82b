import { IdemError } from './idem-error.ts';

/**
 * The database could not be reached (connection refused, a timeout, a host name not found, the
 * server refusing connections for now): outcome `unavailable`, retry later. The message names the
 * host and port only, never the URL's user or password.
 */
export class DatabaseUnavailableError extends IdemError {
  /** `host:port` of the database, as the URL names it. */
  readonly host: string;
  /** Why, in a few words: `connection refused`, `host name not found`. */
  readonly reason: string;

  constructor(host: string, reason: string, cause?: unknown) {
    super(`the database at ${host} is unavailable (${reason}); retry later`, { code: 'DATABASE_UNAVAILABLE', outcome: 'unavailable', cause });
    this.host = host;
    this.reason = reason;
  }
}
