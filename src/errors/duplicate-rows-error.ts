import { IdemError } from './idem-error.ts';

/**
 * Rows of an existing table share a key, so the unique key idem needs cannot be created (a person
 * must act: `idem duplicates` shows them and removes them). Outcome `duplicates`, exit 3.
 */
export class DuplicateRowsError extends IdemError {
  /** The table, and the columns that should be unique. */
  readonly table: string;
  readonly key: readonly string[];

  constructor(message: string, table: string, key: readonly string[]) {
    super(message, { code: 'DUPLICATE_ROWS', outcome: 'duplicates' });
    this.table = table;
    this.key = key;
  }
}
