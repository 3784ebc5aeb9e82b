import type { Knex } from 'knex';
import type { ColumnSpec } from '../column/column-type.ts';
import type { AppLockAttempt, AppLockRequest } from './app-lock.ts';
import type { SkipLockedSyntax } from './skip-locked-syntax.ts';
import type { SnapshotRow } from './snapshot-read.ts';
import type { TableColumn } from './table-column.ts';
import type { UpsertCounts, UpsertPlan } from './upsert-plan.ts';

/** A piece of SQL and its bindings (`?` placeholders, in order). */
export interface SqlFragment {
  readonly sql: string;
  readonly bindings: readonly Knex.Value[];
}

/** The dialects idem speaks. Only adapters and logs look at this name. */
export type DialectName = 'postgres' | 'sqlite' | 'mysql' | 'mssql';

/**
 * Everything that differs between databases, behind one interface. Each dialect has a folder
 * with the same files: `<d>-dialect.ts` (this interface), `<d>-app-lock.ts`, `<d>-bulk-load.ts`,
 * `<d>-upsert.ts` and `<d>-types.ts`. Code above the adapter never asks which database it talks
 * to; where a statement's shape differs, it reads a capability (`supportsReturning`,
 * `skipLocked`, …) and builds the statement itself.
 */
export interface DialectAdapter {
  readonly name: DialectName;
  /** The knex configuration for this database, with the driver's type quirks settled. */
  knexConfig(): Knex.Config;
  /**
   * The statements that create and drop a database called `name` (lowercase letters, digits and
   * `_`) on this adapter's server, for throwaway databases (`idem prove`, the test suite). `drop`
   * also ends the sessions still connected to it (a killed run's). Undefined for SQLite, whose
   * databases are files.
   */
  serverDatabaseSql(name: string): { create: string; drop: string } | undefined;
  /**
   * Adds a business column to a table being created or altered, with a type that holds its value
   * exactly. Returns knex's column builder, so an alteration can end it with `.alter()`.
   */
  addColumn(table: Knex.TableBuilder, name: string, spec: ColumnSpec): Knex.ColumnBuilder;
  /**
   * The type name `addColumn` gives a column of `spec`, normalised as `readTableColumns` reports
   * types, so a pipeline's columns and a live table compare as text (schema drift).
   */
  columnTypeName(name: string, spec: ColumnSpec): string;
  /**
   * The columns of a live table, in table order, with their normalised type names and
   * nullability; undefined when the table does not exist.
   */
  readTableColumns(knex: Knex | Knex.Transaction, table: string): Promise<TableColumn[] | undefined>;
  /** A canonical value (see `ColumnType`) as the driver writes it. */
  toDriverValue(spec: ColumnSpec, value: unknown): unknown;
  /** A value as the driver read it, back to its canonical form. */
  fromDriverValue(spec: ColumnSpec, value: unknown): unknown;
  /**
   * A json column's value as the driver read it, as its JSON text (`null` for SQL NULL): the
   * text `toDriverValue` wrote, which `fromDriverValue` parses.
   */
  fromDriverJsonText(value: unknown): string | null;
  /** One non-blocking attempt to take an app lock on a dedicated connection (or a lease). */
  tryAcquireAppLock(knex: Knex, request: AppLockRequest): Promise<AppLockAttempt>;
  /**
   * One non-blocking attempt to take the lock `idem migrate` holds while it migrates, on a
   * database that may have no idem table yet. The server dialects take the app lock's own
   * session lock under the migration's name (none needs a table); SQLite, whose app lock is a row
   * in a table a migration creates, an exclusive transaction on a file beside the database. A
   * killed holder leaves no lock behind on any dialect.
   */
  tryAcquireMigrationLock(knex: Knex, request: AppLockRequest): Promise<AppLockAttempt>;
  /**
   * Takes the app lock `name` away from the process holding it, the way a database loses it
   * under a run: the server ends the holder's session (PostgreSQL `pg_terminate_backend` of the
   * backend holding the advisory lock, MySQL/MariaDB `KILL` of the connection `IS_USED_LOCK`
   * names, SQL Server `KILL` of the session holding the APPLICATION lock); SQLite deletes the
   * lease row, as if another process had taken it. For `idem prove`'s lost-lock check; never
   * called by a run. Needs the rights to end another session (PostgreSQL: the same role or
   * `pg_signal_backend`; MySQL: `CONNECTION_ADMIN` for another user's).
   * @returns whether a holder was found and ended.
   */
  endAppLockHolder(knex: Knex, name: string): Promise<boolean>;
  /**
   * Ends what the adapter opened besides knex's pool: PostgreSQL's kept lock sessions (a session
   * kept for the next lock cycle would otherwise stay connected to the database for a few
   * seconds after it is closed, and keep it from being renamed or dropped). Called by
   * `Database.close` after knex's pool; a no-op where nothing is kept. Every lock must be
   * released first.
   */
  close(): Promise<void>;
  /**
   * Appends rows to a table by the dialect's fast path. Rows hold driver values in `columns`
   * order; batches bound memory (the caller sizes them). `specs` holds each column's spec, in
   * `columns` order, exactly as the table was created with it (typed loads such as SQL Server's
   * bulk load must declare every column's type and nullability). Holds one pooled connection
   * while it pulls `batches`.
   * @returns the number of rows loaded.
   */
  bulkLoad(knex: Knex, table: string, columns: readonly string[], batches: AsyncIterable<unknown[][]>, specs: readonly ColumnSpec[]): Promise<number>;
  /**
   * Empties a staging table before a run loads it, the dialect's way that leaves no dead rows
   * behind for the run's scans to step over (PostgreSQL `TRUNCATE` of a table that has a page,
   * see `clearStaging`), and that a dry run's transaction can roll back (so never MySQL's
   * `TRUNCATE`, which commits). Only for tables no other session uses meanwhile: the pipeline's
   * app lock guarantees that.
   */
  emptyStaging(knex: Knex, staging: string): Promise<void>;
  /**
   * Empties a staging table at the end of its run, after the upsert committed, outside any
   * transaction: its rows are not kept until the next run, and the table is left so that the
   * next run's `emptyStaging` has nothing to do (PostgreSQL `DELETE`, then `VACUUM`).
   */
  clearStaging(knex: Knex, staging: string): Promise<void>;
  /**
   * Refreshes the planner's statistics of a table that just changed a lot (its row count, and
   * `columns`, the ones it is joined or filtered on), where the database does not keep them
   * current by itself (PostgreSQL `ANALYZE`), also inside a transaction, counting its own
   * uncommitted rows. A staging table just loaded, or a ledger or target grown in this
   * transaction, is joined or read by its key index only if the planner knows how many rows it
   * holds.
   *
   * With `writtenRows` (rows this write inserted or changed) the refresh happens only when the
   * write is large for the table: any write to a table without column statistics, else at least
   * 1,000 rows and more than the database's own upkeep lets change before it refreshes them
   * (PostgreSQL: autoanalyze's default 50 + 10% of the rows last counted). Without it, always.
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
   * How this dialect skips rows other transactions hold locked in a locking read (see
   * `SkipLockedSyntax`): the post ledger's claim reads with it, so concurrent claimers in other
   * processes never take the same row nor wait on each other's claims. `{ tableHint: '', suffix: '' }`
   * where the dialect has no row locks to skip.
   * - PostgreSQL: suffix ` for update skip locked`
   *   (https://www.postgresql.org/docs/current/sql-select.html#SQL-FOR-UPDATE-SHARE).
   * - MySQL 8.0+ / MariaDB 10.6+: suffix ` for update skip locked`
   *   (https://dev.mysql.com/doc/refman/8.0/en/innodb-locking-reads.html,
   *   https://mariadb.com/kb/en/select/#skip-locked).
   * - SQL Server: table hint ` with (updlock, readpast, rowlock)`: update locks so two claimers
   *   never both take a row, READPAST so one skips (not waits for) rows another holds locked, row
   *   locks so it does not escalate to page locks that READPAST would skip whole
   *   (https://learn.microsoft.com/sql/t-sql/queries/hints-transact-sql-table).
   * - SQLite: none. It has one writer at a time and an UPDATE takes the write lock before it
   *   reads, so a claim's read and its update see the same rows.
   */
  readonly skipLocked: SkipLockedSyntax;
  /**
   * Whether `UPDATE … RETURNING *` returns the changed rows, so a claim is one statement.
   * `false` where the dialect lacks it. PostgreSQL: `true`
   * (https://www.postgresql.org/docs/current/sql-update.html). SQLite 3.35+: `true`
   * (https://www.sqlite.org/lang_returning.html). MySQL and MariaDB have no `UPDATE … RETURNING`
   * (a claim there is a locking read, then an update of its ids, in one transaction). SQL
   * Server: see `supportsOutput`.
   */
  readonly supportsReturning: boolean;
  /**
   * Whether the server frees the app lock when its holder's session ends (PostgreSQL advisory
   * locks, MySQL `GET_LOCK`, SQL Server `sp_getapplock`): then a free lock proves that no process
   * runs the pipeline. False for SQLite's lease row, which a dead holder leaves behind until it
   * lapses, so only the heartbeat tells there (`runs/run-liveness.ts`).
   */
  readonly appLockEndsWithSession: boolean;
  /**
   * Whether DDL (`CREATE TABLE`, `CREATE INDEX`) takes part in a transaction, so it rolls back with
   * it. PostgreSQL, SQLite and SQL Server: `true`
   * (https://wiki.postgresql.org/wiki/Transactional_DDL_in_PostgreSQL:_A_Competitive_Analysis).
   * MySQL and MariaDB: `false`, every DDL statement commits the open transaction first
   * (https://dev.mysql.com/doc/refman/8.0/en/implicit-commit.html).
   */
  readonly transactionalDdl: boolean;
  /**
   * Creates table `copy` with the columns of `table` and no rows, no keys and no indexes (for a
   * copy of rows that are about to be deleted). PostgreSQL, MySQL and SQLite:
   * `CREATE TABLE copy AS SELECT * FROM table WHERE 1 = 0`; SQL Server: `SELECT * INTO copy FROM
   * table WHERE 1 = 0`.
   */
  createEmptyCopy(knex: Knex | Knex.Transaction, table: string, copy: string): Promise<void>;
  /**
   * The names of a live table's indexes (unique or not, and the primary key's where the database
   * names it as an index); `[]` for a table without any.
   */
  readIndexNames(knex: Knex | Knex.Transaction, table: string): Promise<string[]>;
  /**
   * Whether `UPDATE … OUTPUT inserted.*` returns the changed rows (T-SQL), so a claim is one
   * statement: an UPDATE through an ordered `TOP (n)` common table expression (a bare
   * `UPDATE TOP (n)` takes arbitrary rows). `false` where the dialect lacks it. SQL Server: `true`
   * (https://learn.microsoft.com/sql/t-sql/queries/output-clause-transact-sql).
   */
  readonly supportsOutput: boolean;
  /**
   * The rows of a `knex.raw` result. knex answers a raw statement with whatever the driver
   * answers (https://knexjs.org/guide/raw.html): pg a result with `rows`, mysql2
   * `[rows, fields]`, better-sqlite3 and tedious the rows themselves.
   */
  rawRows(result: unknown): Record<string, unknown>[];
  /**
   * SQL for the database's own current instant plus `offsetMs` (negative: before now), of the
   * type an `instant` column holds, to write into one or compare with it. Post ledger claims are
   * stamped and compared with it: every process then reads one clock, the database's, and hosts
   * whose clocks disagree still agree on when a claim lapses. Evaluated when the statement runs.
   */
  instantFromNowSql(offsetMs: number): SqlFragment;
  /**
   * Whether an error is a lock conflict the database resolved by failing one statement or
   * transaction (a deadlock victim, a lock wait timeout, a busy database): running the same work
   * again is safe and usually succeeds. Concurrent post workers meet these; see `retryLockConflict`.
   */
  isLockConflict(error: unknown): boolean;
  /**
   * When an error means the database, or the disk it writes to, is full: the cause in one phrase
   * an operator reads first, naming where and ending with the database's own words (never the
   * statement). Undefined for any other error. A rerun cannot help until a person frees space:
   * the run ends `disk-full` (exit 3). SQLite: `SQLITE_FULL` (https://www.sqlite.org/rescode.html#full);
   * PostgreSQL: SQLSTATE 53100 `disk_full`; MySQL/MariaDB: 1114 `ER_RECORD_FILE_FULL`, 1021
   * `ER_DISK_FULL`, and OS error 28 (ENOSPC) in the server's words; SQL Server: 1105 (a
   * filegroup full) and 9002 (the log full).
   */
  diskFull(error: unknown): string | undefined;
  /**
   * The adapter's effective settings worth one log line when a session starts (for example the
   * SQL Server request timeout); `{}` when there is nothing to say. Never holds secrets.
   */
  describeSettings(): Readonly<Record<string, unknown>>;
  /**
   * Streams the rows of `query` read in one read-only transaction that sees one snapshot of the
   * database, on one connection of `knex`'s pool, at most about `fetchRows` held at a time: a
   * `sqlSource`'s read. PostgreSQL `REPEATABLE READ, READ ONLY` with a server-side cursor,
   * MySQL/MariaDB `START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY` at `REPEATABLE READ`
   * with mysql2's stream, SQLite a deferred read transaction (`query_only`) with better-sqlite3's
   * `iterate()`, SQL Server `SNAPSHOT` with tedious's stream (see `<d>-snapshot-read.ts`). A read
   * abandoned half-way rolls back.
   */
  streamSnapshotRows(knex: Knex, query: SqlFragment, fetchRows: number): AsyncIterable<SnapshotRow>;
  /**
   * Whether the database refused a statement as written (a syntax error, no such column or
   * table, no permission): no rerun fixes it. Read before the first row of a snapshot read.
   */
  isRejectedStatement(error: unknown): boolean;
}
