import { IdemError } from './idem-error.ts';

/**
 * Another session kept the rows (or, on SQLite, the whole database file) a run had to write
 * locked through every retry of the statement (`DialectAdapter.isLockConflict`: a lock wait
 * timeout or a deadlock on a server, SQLITE_BUSY past the busy timeout on SQLite; see
 * `retryLockConflict`): outcome `unavailable`, exit 75. On SQLite that is a process stopped or
 * stuck inside a write transaction (a frozen `idem work`, a SIGSTOP, an open `sqlite3` shell).
 * The statement that met it changed nothing, and each stage's writes are one transaction or are
 * replaced by the next attempt, so a plain rerun once the other session lets go resumes. The
 * message leads with that sentence and puts the driver's words after it.
 */
export class DatabaseBusyError extends IdemError {
  /** The stage that was running: `extract and stage`, `upsert` or `post`. */
  readonly stage: string;

  constructor(stage: string, driverText: string, cause?: unknown) {
    super(`another session kept the database locked through every retry during ${stage} (on SQLite, a process stopped or stuck inside a write transaction); a plain rerun once it lets go resumes (${driverText})`, {
      code: 'DATABASE_BUSY',
      outcome: 'unavailable',
      cause,
    });
    this.stage = stage;
  }
}
