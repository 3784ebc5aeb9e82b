import { IdemError } from './idem-error.ts';

/** One business key occurs more than once in a run and the pipeline's rule forbids it. */
export class DuplicateKeyError extends IdemError {
  readonly keys: readonly string[];

  constructor(message: string, keys: readonly string[]) {
    super(message, { code: 'DUPLICATE_KEY' });
    this.keys = keys;
  }
}
