import { IdemError } from './idem-error.ts';

/**
 * A disk a run writes to is full: the database's (its adapter's `diskFull` names it and the
 * database's own words), or the temporary directory an external sort spills to. Outcome
 * `disk-full`, exit 3: no rerun succeeds until a person frees space. What was cut committed
 * nothing (each stage's writes are one transaction, or are replaced by the next attempt), so the
 * same command then resumes. The message leads with the cause: an operator reads it first, and
 * `idem status` shows it whole, where a driver's message led with the statement.
 */
export class DiskFullError extends IdemError {
  constructor(cause: string, advice: string, error?: unknown) {
    super(`${cause}; ${advice}`, { code: 'DISK_FULL', outcome: 'disk-full', cause: error });
  }
}
