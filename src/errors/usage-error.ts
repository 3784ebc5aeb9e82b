import { IdemError } from './idem-error.ts';

/**
 * A bad flag, a missing run key, an unknown pipeline or a bad setting: outcome `usage`. `cause`
 * keeps the error behind it (a pipeline module that threw while loading), for its stack.
 */
export class UsageError extends IdemError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: 'USAGE', outcome: 'usage', cause: options.cause });
  }
}
