import { IdemError } from './idem-error.ts';

/**
 * A full snapshot would mark more of its scope deleted than the source's `maxDeleteShare`
 * allows, or is an empty read of a scope that holds records (a cut file, a first page only, a
 * broken export filter look just like that): the run stops before writing anything, exit 3, until
 * an operator confirms the count with `--allow-deletes N`.
 */
export class DeletionsHeldError extends IdemError {
  /** The records the read would mark deleted: what `--allow-deletes` must say. */
  readonly deletions: number;

  constructor(deletions: number, message: string) {
    super(message, { code: 'DELETIONS_HELD', outcome: 'needs-review' });
    this.deletions = deletions;
  }
}
