import { IdemError } from './idem-error.ts';

/**
 * The database connection was lost in the middle of a run (a reset, a terminated backend, a
 * failover, the server going away): outcome `unavailable`, exit 75. The stage that was running
 * committed nothing (each stage's writes are one transaction, or are replaced by the next
 * attempt), so a plain rerun resumes. The message leads with that sentence and puts the driver's
 * words after it.
 */
export class ConnectionLostError extends IdemError {
  /** The stage that was running: `extract and stage`, `upsert` or `post`. */
  readonly stage: string;

  constructor(stage: string, driverText: string, cause?: unknown) {
    super(`the database connection was lost during ${stage}; nothing of this stage was committed; a plain rerun resumes (${driverText})`, {
      code: 'CONNECTION_LOST',
      outcome: 'unavailable',
      cause,
    });
    this.stage = stage;
  }
}
