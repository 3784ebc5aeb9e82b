/**
 * How a dialect writes a locking read that skips rows other transactions hold locked: the read
 * of a work queue's claim, so concurrent claimers never take the same row nor wait on each
 * other's. Where the dialect has no such read (SQLite, whose single writer serialises
 * claimers), both parts are `''`.
 */
export interface SkipLockedSyntax {
  /**
   * Written right after the table name in the read's FROM, with its leading space: SQL Server's
   * table hints ` with (updlock, readpast, rowlock)`. `''` where the dialect locks by a clause.
   */
  readonly tableHint: string;
  /**
   * Written at the end of the read (after its ORDER BY and LIMIT), with its leading space:
   * PostgreSQL's and MySQL's ` for update skip locked`. `''` where the dialect locks by a hint.
   */
  readonly suffix: string;
}
