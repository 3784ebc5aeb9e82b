import { IdemError } from './idem-error.ts';

/** A bad flag, a missing run key, an unknown pipeline or a bad setting: exit code 2. */
export class UsageError extends IdemError {
  constructor(message: string) {
    super(message, { code: 'USAGE', exitCode: 2 });
  }
}
