import { IdemError } from './idem-error.ts';

/**
 * The run no longer owns its app lock (the lock connection died, or the SQLite lease was taken
 * over after it expired). The run stops before its next durable step; a rerun resumes.
 */
export class LockLostError extends IdemError {
  readonly lockName: string;

  constructor(lockName: string, reason: string, cause?: unknown) {
    super(`app lock "${lockName}" was lost (${reason}); stopped before the next durable step, rerun to resume`, {
      code: 'LOCK_LOST',
      cause,
    });
    this.lockName = lockName;
  }
}
