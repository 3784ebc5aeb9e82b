import type { Knex } from 'knex';
import type { ColumnSpec } from '../pipeline/column-type.ts';
import type { AppLockAttempt, AppLockRequest } from './app-lock.ts';
import type { LedgerClaimRequest } from './ledger-claim.ts';
import type { UpsertCounts, UpsertPlan } from './upsert-plan.ts';

/** The dialects idem speaks. Only adapters and logs look at this name. */
export type DialectName = 'postgres' | 'sqlite' | 'mysql' | 'mssql';

/**
 * Everything that differs between databases, behind one interface. Each dialect has a folder
 * with the same files: `<d>-dialect.ts` (this interface), `<d>-app-lock.ts`, `<d>-bulk-load.ts`,
 * `<d>-upsert.ts`, `<d>-ledger-claim.ts` and `<d>-types.ts`. Code above the adapter never asks which database it
 * talks to.
 */
export interface DialectAdapter {
  readonly name: DialectName;
  /** The knex configuration for this database, with the driver's type quirks settled. */
  knexConfig(): Knex.Config;
  /** Adds a business column to a table being created, with a type that holds its value exactly. */
  addColumn(table: Knex.CreateTableBuilder, name: string, spec: ColumnSpec): void;
  /** A canonical value (see `ColumnType`) as the driver writes it. */
  toDriverValue(spec: ColumnSpec, value: unknown): unknown;
  /** A value as the driver read it, back to its canonical form. */
  fromDriverValue(spec: ColumnSpec, value: unknown): unknown;
  /** One non-blocking attempt to take an app lock on a dedicated connection (or a lease). */
  tryAcquireAppLock(knex: Knex, request: AppLockRequest): Promise<AppLockAttempt>;
  /**
   * Appends rows to a table by the dialect's fast path. Rows hold driver values in `columns`
   * order; batches bound memory (the caller sizes them). `specs` holds each column's spec, in
   * `columns` order, exactly as the table was created with it (typed loads such as SQL Server's
   * bulk load must declare every column's type and nullability).
   * @returns the number of rows loaded.
   */
  bulkLoad(knex: Knex, table: string, columns: readonly string[], batches: AsyncIterable<unknown[][]>, specs: readonly ColumnSpec[]): Promise<number>;
  /**
   * Empties a staging table before a run loads it, the dialect's way that leaves no dead rows
   * behind for the run's scans to step over (PostgreSQL `TRUNCATE`), and that a dry run's
   * transaction can roll back (so never MySQL's `TRUNCATE`, which commits). Only for tables no
   * other session uses meanwhile: the pipeline's app lock guarantees that.
   */
  emptyStaging(knex: Knex, staging: string): Promise<void>;
  /**
   * Refreshes the planner's statistics of a table that just changed a lot (its row count, and
   * `columns`, the ones it is joined or filtered on), where the database does not keep them
   * current by itself (PostgreSQL `ANALYZE`), also inside a transaction, counting its own
   * uncommitted rows. A staging table just loaded, or a ledger or target grown in this
   * transaction, is joined or read by its key index only if the planner knows how many rows it
   * holds.
   *
   * With `writtenRows` (rows this write inserted or changed) the refresh happens only when the
   * write is large for the table: at least 1,000 rows and more than the database's own upkeep
   * lets change before it refreshes them (PostgreSQL: autoanalyze's default 50 + 10% of the rows
   * last counted). Without it, always.
   */
  refreshStatistics(knex: Knex | Knex.Transaction, table: string, columns: readonly string[], writtenRows?: number): Promise<void>;
  /** Deletes every staging row that a later row (higher `seq`) with the same key supersedes. */
  deleteSupersededStagingRows(db: Knex | Knex.Transaction, staging: string): Promise<number>;
  /**
   * Updates target rows whose business values differ (null-safe, as the column types hold them)
   * and inserts missing keys, in this order, inside the caller's transaction.
   */
  upsert(trx: Knex.Transaction, plan: UpsertPlan): Promise<UpsertCounts>;
  /**
   * Claims up to `request.limit` claimable post ledger rows of one run at one destination for
   * one worker (see `LedgerClaimRequest`), so that concurrent claimers in other processes never
   * take the same row nor wait on each other's claims (PostgreSQL and MySQL/MariaDB
   * `FOR UPDATE SKIP LOCKED`, SQL Server `UPDLOCK, READPAST, ROWLOCK`, SQLite its single writer).
   * Commits on its own.
   * @returns the claimed rows as the driver read them (every `post_ledger` column), in id order.
   */
  claimLedgerItems(knex: Knex, request: LedgerClaimRequest): Promise<Record<string, unknown>[]>;
  /**
   * Whether an error is a lock conflict the database resolved by failing one statement or
   * transaction (a deadlock victim, a lock wait timeout, a busy database): running the same work
   * again is safe and usually succeeds. Concurrent post workers meet these; see `retryLockConflict`.
   */
  isLockConflict(error: unknown): boolean;
  /**
   * The adapter's effective settings worth one log line when a session starts (for example the
   * SQL Server request timeout); `{}` when there is nothing to say. Never holds secrets.
   */
  describeSettings(): Readonly<Record<string, unknown>>;
}
