import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import pRetry from 'p-retry';
import type { TableColumn } from '../table-column.ts';
import type { ColumnSpec } from '../../column/column-type.ts';
import type { AppLockAttempt, AppLockRequest } from '../app-lock.ts';
import { supersededStagingRowsSql } from '../superseded-staging-rows-sql.ts';
import type { DialectAdapter, SqlFragment } from '../dialect-adapter.ts';
import { driverWords } from '../driver-words.ts';
import { streamSnapshot, type SnapshotRow } from '../snapshot-read.ts';
import { SQLITE_SNAPSHOT_READ, isRejectedSqliteStatement } from './sqlite-snapshot-read.ts';
import { sqliteColumnTypeName, readSqliteTableColumns } from './sqlite-table-columns.ts';
import type { SkipLockedSyntax } from '../skip-locked-syntax.ts';
import { quoteAnsiIdentifier } from '../quote-ansi-identifier.ts';
import type { UpsertCounts, UpsertPlan } from '../upsert-plan.ts';
import { tryAcquireSqliteMigrationLock } from './sqlite-migration-lock.ts';
import { APP_LOCKS_TABLE, tryAcquireSqliteAppLock } from './sqlite-app-lock.ts';
import { sqliteBulkLoad } from './sqlite-bulk-load.ts';
import { addSqliteColumn, fromSqliteValue, toSqliteValue } from './sqlite-types.ts';
import { sqliteUpsert } from './sqlite-upsert.ts';
import { jsonTextValue } from '../json-text-value.ts';

/**
 * How long a statement waits for another process's write transaction before SQLITE_BUSY, in ms.
 * Runs keep their transactions short (one staging batch, one upsert), so this is rarely reached.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * Puts the database in WAL mode (a setting the file keeps). The switch of a file still in
 * rollback-journal mode needs it to itself, and SQLite answers SQLITE_BUSY at once, without
 * waiting out the busy timeout, where waiting could deadlock (a connection holding a read lock
 * that wants to write while another writes: https://www.sqlite.org/c3ref/busy_handler.html):
 * two processes opening a new database at once (two `idem migrate`), or one opening it while a
 * rollback-mode writer holds it. It is asked again, with backoff, for up to the busy timeout;
 * once the other has switched the file, asking again finds it in WAL mode.
 * @throws the driver's SQLITE_BUSY error when the file stayed busy that long.
 */
function switchToWal(connection: import('better-sqlite3').Database): Promise<void> {
  return pRetry(
    () => {
      connection.pragma('journal_mode = WAL');
    },
    {
      retries: Number.POSITIVE_INFINITY,
      minTimeout: 10,
      maxTimeout: 500,
      maxRetryTime: SQLITE_BUSY_TIMEOUT_MS,
      shouldRetry: ({ error }) => (error as { code?: unknown }).code === 'SQLITE_BUSY',
    },
  );
}

/**
 * Embedded SQLite through better-sqlite3 (`DATABASE_URL=sqlite:PATH`, the default
 * `var/idem.sqlite3`): WAL journal so readers never wait, a lease row as the app lock.
 *
 * @example new SqliteDialect('var/idem.sqlite3')
 */
export class SqliteDialect implements DialectAdapter {
  readonly name = 'sqlite' as const;
  /** No row locks: SQLite's single writer serialises claimers. */
  readonly skipLocked: SkipLockedSyntax = { tableHint: '', suffix: '' };
  readonly supportsReturning = true;
  readonly appLockEndsWithSession = false;
  readonly transactionalDdl = true;
  readonly supportsOutput = false;
  readonly #filename: string;

  constructor(filename: string) {
    this.#filename = filename;
  }

  /**
   * Also creates the database file's directory (the embedded default works on a fresh clone) and
   * a new database file with mode 0600: it holds the ledger and the run history, and SQLite gives
   * its -wal and -shm files the mode of the database file.
   */
  knexConfig(): Knex.Config {
    mkdirSync(path.dirname(this.#filename), { recursive: true });
    if (this.#filename !== ':memory:' && !existsSync(this.#filename)) closeSync(openSync(this.#filename, 'a', 0o600));
    return {
      client: 'better-sqlite3',
      connection: { filename: this.#filename },
      useNullAsDefault: true,
      pool: {
        afterCreate(connection: import('better-sqlite3').Database, done: (error: Error | null, connection: unknown) => void) {
          connection.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
          switchToWal(connection).then(
            () => {
              connection.pragma('synchronous = NORMAL');
              done(null, connection);
            },
            (error: Error) => done(error, connection),
          );
        },
      },
    };
  }

  /** None: a SQLite database is a file. */
  serverDatabaseSql(): undefined {
    return undefined;
  }

  addColumn(table: Knex.TableBuilder, name: string, spec: ColumnSpec): Knex.ColumnBuilder {
    return addSqliteColumn(table, name, spec);
  }

  columnTypeName(_name: string, spec: ColumnSpec): string {
    return sqliteColumnTypeName(spec);
  }

  async createEmptyCopy(knex: Knex | Knex.Transaction, table: string, copy: string): Promise<void> {
    await knex.raw('create table ?? as select * from ?? where 1 = 0', [copy, table]);
  }

  async readIndexNames(knex: Knex | Knex.Transaction, table: string): Promise<string[]> {
    const result: unknown = await knex.raw('select name from pragma_index_list(?)', [table]);
    return (result as { name: string }[]).map((row) => row.name);
  }

  readTableColumns(knex: Knex | Knex.Transaction, table: string): Promise<TableColumn[] | undefined> {
    return readSqliteTableColumns(knex, table);
  }

  toDriverValue(spec: ColumnSpec, value: unknown): unknown {
    return toSqliteValue(spec, value);
  }

  fromDriverValue(spec: ColumnSpec, value: unknown): unknown {
    return fromSqliteValue(spec, value);
  }

  fromDriverJsonText(value: unknown): string | null {
    return jsonTextValue(value);
  }

  tryAcquireAppLock(knex: Knex, request: AppLockRequest): Promise<AppLockAttempt> {
    return tryAcquireSqliteAppLock(knex, request);
  }

  tryAcquireMigrationLock(_knex: Knex, request: AppLockRequest): Promise<AppLockAttempt> {
    return tryAcquireSqliteMigrationLock(this.#filename, request.name);
  }

  /** Nothing is kept: each app lock's connection ends with its release. */
  /** Deletes the lease row: the holder's next renewal, or proof, finds it gone. */
  async endAppLockHolder(knex: Knex, name: string): Promise<boolean> {
    return (await knex(APP_LOCKS_TABLE).where({ name }).delete()) > 0;
  }

  async close(): Promise<void> {}

  bulkLoad(knex: Knex, table: string, columns: readonly string[], batches: AsyncIterable<unknown[][]>): Promise<number> {
    return sqliteBulkLoad(knex, table, columns, batches);
  }

  /** SQLite: `DELETE` without a `WHERE` is its truncate optimisation (https://sqlite.org/lang_delete.html). */
  async emptyStaging(knex: Knex, staging: string): Promise<void> {
    await knex(staging).delete();
  }

  /** The same `DELETE`. */
  clearStaging(knex: Knex, staging: string): Promise<void> {
    return this.emptyStaging(knex, staging);
  }

  /** Nothing to do: without statistics SQLite plans the upsert's and the ledger's joins through their key indexes. */
  async refreshStatistics(): Promise<void> {}

  async deleteSupersededStagingRows(db: Knex | Knex.Transaction, staging: string): Promise<number> {
    // better-sqlite3 reports a statement's row count as `changes`.
    return ((await db.raw(supersededStagingRowsSql(staging, quoteAnsiIdentifier))) as { changes: number }).changes;
  }

  upsert(trx: Knex.Transaction, plan: UpsertPlan): Promise<UpsertCounts> {
    return sqliteUpsert(trx, plan);
  }

  /** `strftime(…, 'now', '±N seconds')`: the canonical ISO text an `instant` column holds, with ms. */
  instantFromNowSql(offsetMs: number): SqlFragment {
    return { sql: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)", bindings: [`${Math.round(offsetMs) / 1000} seconds`] };
  }

  /** SQLITE_BUSY: another connection holds the write lock past the busy timeout: https://www.sqlite.org/rescode.html#busy */
  isLockConflict(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
  }

  /** better-sqlite3 answers a raw statement that returns rows with the rows. */
  rawRows(result: unknown): Record<string, unknown>[] {
    return result as Record<string, unknown>[];
  }

  diskFull(error: unknown): string | undefined {
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'SQLITE_FULL' ? `the database or disk is full (SQLite file ${this.#filename}: ${driverWords(error)})` : undefined;
  }

  describeSettings(): Readonly<Record<string, unknown>> {
    return {};
  }

  streamSnapshotRows(knex: Knex, query: SqlFragment, fetchRows: number): AsyncIterable<SnapshotRow> {
    return streamSnapshot(knex, SQLITE_SNAPSHOT_READ, query, fetchRows);
  }

  isRejectedStatement(error: unknown): boolean {
    return isRejectedSqliteStatement(error);
  }
}
