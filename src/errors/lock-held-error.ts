import { IdemError } from './idem-error.ts';

/** The pipeline's app lock is held by another run: exit code 75 (EX_TEMPFAIL), retry later. */
export class LockHeldError extends IdemError {
  readonly lockName: string;
  readonly holder: string;

  constructor(lockName: string, holder: string) {
    super(`app lock "${lockName}" is held by ${holder}; retry later`, { code: 'LOCK_HELD', exitCode: 75 });
    this.lockName = lockName;
    this.holder = holder;
  }
}
