import { IdemError } from './idem-error.ts';

/**
 * A source stayed unreachable through its retries before the run read anything from it (a SQL
 * source's database refusing connections, timing out, its host not found): outcome
 * `unavailable`, exit 75, retry later. Nothing was staged. The message names the source and its
 * host and port, never a user or password.
 */
export class SourceUnavailableError extends IdemError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: 'SOURCE_UNAVAILABLE', outcome: 'unavailable', cause });
  }
}
