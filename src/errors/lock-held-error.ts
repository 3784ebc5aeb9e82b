import { IdemError } from './idem-error.ts';

/** The pipeline's app lock is held by another run: outcome `lock-held`, retry later. */
export class LockHeldError extends IdemError {
  readonly lockName: string;
  readonly holder: string;

  constructor(lockName: string, holder: string) {
    super(`app lock "${lockName}" is held by ${holder}; retry later`, { code: 'LOCK_HELD', outcome: 'lock-held' });
    this.lockName = lockName;
    this.holder = holder;
  }
}
