import type { Knex } from 'knex';
import type { TableColumn } from '../table-column.ts';
import type pg from 'pg';
import type { ColumnSpec } from '../../column/column-type.ts';
import type { AppLockAttempt, AppLockRequest } from '../app-lock.ts';
import type { DialectAdapter, SqlFragment } from '../dialect-adapter.ts';
import { driverWords } from '../driver-words.ts';
import { streamSnapshot, type SnapshotRow } from '../snapshot-read.ts';
import { POSTGRES_SNAPSHOT_READ, isRejectedPostgresStatement } from './postgres-snapshot-read.ts';
import { postgresColumnTypeName, readPostgresTableColumns } from './postgres-table-columns.ts';
import type { SkipLockedSyntax } from '../skip-locked-syntax.ts';
import { quoteAnsiIdentifier } from '../quote-ansi-identifier.ts';
import { supersededStagingRowsSql } from '../superseded-staging-rows-sql.ts';
import type { UpsertCounts, UpsertPlan } from '../upsert-plan.ts';
import { createPostgresLockSessions, endPostgresAppLockHolder, tryAcquirePostgresAppLock } from './postgres-app-lock.ts';
import { analyzePostgresTable, clearPostgresStaging, emptyPostgresStaging, postgresBulkLoad } from './postgres-bulk-load.ts';
import { addPostgresColumn, fromPostgresValue, POSTGRES_TYPE_PARSERS, toPostgresValue } from './postgres-types.ts';
import { postgresUpsert } from './postgres-upsert.ts';
import { jsonTextValue } from '../json-text-value.ts';

/**
 * PostgreSQL (`DATABASE_URL=postgres://…` or `postgresql://…`): advisory app lock on a dedicated
 * session, `COPY FROM STDIN` for staging, `IS DISTINCT FROM` for change detection.
 *
 * @example new PostgresDialect('postgres://app@db.internal:5432/etl')
 */
/** How long `close` waits for the lock sessions to end, in ms. */
const CLOSE_WAIT_MS = 2_000;

export class PostgresDialect implements DialectAdapter {
  readonly name = 'postgres' as const;
  /** Skips locked rows by `FOR UPDATE SKIP LOCKED`. */
  readonly skipLocked: SkipLockedSyntax = { tableHint: '', suffix: ' for update skip locked' };
  readonly supportsReturning = true;
  readonly appLockEndsWithSession = true;
  readonly transactionalDdl = true;
  readonly supportsOutput = false;
  readonly #url: string;
  #lockSessions: pg.Pool | undefined;
  /** Tables seen with column statistics (see `analyzePostgresTable`). */
  readonly #withStatistics = new Set<string>();

  constructor(url: string) {
    this.#url = url;
  }

  knexConfig(): Knex.Config {
    return {
      client: 'pg',
      connection: { connectionString: this.#url, types: POSTGRES_TYPE_PARSERS } as Knex.PgConnectionConfig,
      pool: { min: 0, max: 8 },
    };
  }

  /** `drop … with (force)` ends the sessions still connected (PostgreSQL 13+). */
  serverDatabaseSql(name: string): { create: string; drop: string } {
    return { create: `create database ${name}`, drop: `drop database if exists ${name} with (force)` };
  }

  addColumn(table: Knex.TableBuilder, name: string, spec: ColumnSpec): Knex.ColumnBuilder {
    return addPostgresColumn(table, name, spec);
  }

  columnTypeName(_name: string, spec: ColumnSpec): string {
    return postgresColumnTypeName(spec);
  }

  async createEmptyCopy(knex: Knex | Knex.Transaction, table: string, copy: string): Promise<void> {
    await knex.raw('create table ?? as select * from ?? where 1 = 0', [copy, table]);
  }

  async readIndexNames(knex: Knex | Knex.Transaction, table: string): Promise<string[]> {
    const result: unknown = await knex.raw('select indexname as name from pg_indexes where schemaname = current_schema() and tablename = ?', [table]);
    return ((result as { rows: { name: string }[] }).rows).map((row) => row.name);
  }

  readTableColumns(knex: Knex | Knex.Transaction, table: string): Promise<TableColumn[] | undefined> {
    return readPostgresTableColumns(knex, table);
  }

  toDriverValue(spec: ColumnSpec, value: unknown): unknown {
    return toPostgresValue(spec, value);
  }

  fromDriverValue(spec: ColumnSpec, value: unknown): unknown {
    return fromPostgresValue(spec, value);
  }

  fromDriverJsonText(value: unknown): string | null {
    return jsonTextValue(value);
  }

  tryAcquireAppLock(_knex: Knex, request: AppLockRequest): Promise<AppLockAttempt> {
    this.#lockSessions ??= createPostgresLockSessions(this.#url);
    return tryAcquirePostgresAppLock(this.#lockSessions, request);
  }

  /** The app lock's session lock under the migration's name: it needs no idem table. */
  tryAcquireMigrationLock(knex: Knex, request: AppLockRequest): Promise<AppLockAttempt> {
    return this.tryAcquireAppLock(knex, request);
  }

  endAppLockHolder(knex: Knex, name: string): Promise<boolean> {
    return endPostgresAppLockHolder(knex, name);
  }

  /**
   * Ends the kept lock sessions (see `createPostgresLockSessions`). pg's `Pool.end` also waits for
   * a session still checked out, which only a lock never released would be: the wait is bounded
   * (`CLOSE_WAIT_MS`), so a close never hangs on it.
   */
  async close(): Promise<void> {
    const sessions = this.#lockSessions;
    this.#lockSessions = undefined;
    if (!sessions) return;
    await Promise.race([sessions.end(), new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
  }

  bulkLoad(knex: Knex, table: string, columns: readonly string[], batches: AsyncIterable<unknown[][]>): Promise<number> {
    return postgresBulkLoad(knex, table, columns, batches);
  }

  emptyStaging(knex: Knex, staging: string): Promise<void> {
    return emptyPostgresStaging(knex, staging);
  }

  clearStaging(knex: Knex, staging: string): Promise<void> {
    return clearPostgresStaging(knex, staging);
  }

  refreshStatistics(knex: Knex | Knex.Transaction, table: string, columns: readonly string[], writtenRows?: number): Promise<void> {
    return analyzePostgresTable(knex, table, columns, writtenRows, this.#withStatistics);
  }

  async deleteSupersededStagingRows(db: Knex | Knex.Transaction, staging: string): Promise<number> {
    return (await db.raw(supersededStagingRowsSql(staging, quoteAnsiIdentifier))).rowCount as number;
  }

  upsert(trx: Knex.Transaction, plan: UpsertPlan): Promise<UpsertCounts> {
    return postgresUpsert(trx, plan);
  }

  /** `clock_timestamp()` (the instant of the statement, not of its transaction) plus the offset. */
  instantFromNowSql(offsetMs: number): SqlFragment {
    return { sql: "(clock_timestamp() + ?::bigint * interval '1 millisecond')", bindings: [Math.round(offsetMs)] };
  }

  /** Deadlock (40P01) or serialization failure (40001): https://www.postgresql.org/docs/current/errcodes-appendix.html */
  isLockConflict(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return code === '40P01' || code === '40001';
  }

  /** pg answers a raw statement with a result whose `rows` are the rows. */
  rawRows(result: unknown): Record<string, unknown>[] {
    return (result as { rows: Record<string, unknown>[] }).rows;
  }

  diskFull(error: unknown): string | undefined {
    const code = (error as { code?: unknown } | null)?.code;
    return code === '53100' ? `the database server's disk is full (PostgreSQL SQLSTATE 53100 disk_full: ${driverWords(error)})` : undefined;
  }

  describeSettings(): Readonly<Record<string, unknown>> {
    return {};
  }

  streamSnapshotRows(knex: Knex, query: SqlFragment, fetchRows: number): AsyncIterable<SnapshotRow> {
    return streamSnapshot(knex, POSTGRES_SNAPSHOT_READ, query, fetchRows);
  }

  isRejectedStatement(error: unknown): boolean {
    return isRejectedPostgresStatement(error);
  }
}
