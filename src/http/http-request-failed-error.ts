import { IdemError } from '../errors/idem-error.ts';
import type { HttpFailure } from './classify-http-failure.ts';

/**
 * A request failed for good: a terminal failure, or a transient one that used up the attempts or
 * the time budget. Thrown by `sendWithRetry`; `cause` is the original error of the last attempt
 * (an `HttpStatusError` or an undici/Node network error).
 */
export class HttpRequestFailedError extends IdemError {
  /** How the last attempt failed. */
  readonly failure: HttpFailure;
  /** Attempts made, the first one included. */
  readonly attempts: number;

  constructor(failure: HttpFailure, attempts: number, cause: unknown) {
    const verdict = failure.kind === 'transient' ? 'a later rerun may succeed' : 'a rerun will not help until the cause is fixed';
    super(`${failure.reason}, after ${attempts} attempt(s): ${verdict}`, { code: 'HTTP_REQUEST_FAILED', cause });
    this.failure = failure;
    this.attempts = attempts;
  }
}
