import type { Knex } from 'knex';
import type { TableColumn } from '../table-column.ts';
import type { ColumnSpec } from '../../column/column-type.ts';
import type { AppLockAttempt, AppLockRequest } from '../app-lock.ts';
import type { DialectAdapter, SqlFragment } from '../dialect-adapter.ts';
import { driverWords } from '../driver-words.ts';
import { streamSnapshot, type SnapshotRow } from '../snapshot-read.ts';
import { MSSQL_SNAPSHOT_READ, isRejectedMssqlStatement } from './mssql-snapshot-read.ts';
import { mssqlColumnTypeName, readMssqlTableColumns } from './mssql-table-columns.ts';
import type { SkipLockedSyntax } from '../skip-locked-syntax.ts';
import { supersededStagingRowsSql } from '../superseded-staging-rows-sql.ts';
import type { UpsertCounts, UpsertPlan } from '../upsert-plan.ts';
import { mssqlAppLockResource, tryAcquireMssqlAppLock } from './mssql-app-lock.ts';
import { type MssqlLoadColumn, mssqlBulkLoad, mssqlInsertRows } from './mssql-bulk-load.ts';
import { type MssqlConnectionSettings, mssqlKnexConnection, parseMssqlUrl } from './mssql-connection-config.ts';
import { quoteMssqlIdentifier } from './mssql-quote-identifier.ts';
import { addMssqlColumn, fromMssqlValue, toMssqlValue } from './mssql-types.ts';
import { mssqlUpsert, rowCountOf, withRowCount } from './mssql-upsert.ts';
import { jsonTextValue } from '../json-text-value.ts';

/** The default of `IDEM_MSSQL_REQUEST_TIMEOUT_MS`. */
export const MSSQL_DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Settings of {@link MssqlDialect} that do not come from the URL. */
export interface MssqlDialectOptions {
  /**
   * tedious' request timeout in ms (`IDEM_MSSQL_REQUEST_TIMEOUT_MS`): how long a statement may
   * wait for the server's first answer; 0 waits forever. @defaultValue 30000
   */
  readonly requestTimeoutMs?: number;
}

/**
 * SQL Server (`DATABASE_URL=mssql://user:password@host:1433/database`, also `sqlserver://`;
 * parameters `encrypt`, `trustServerCertificate`, `stagingLoad`): `sp_getapplock` on a
 * dedicated session, a TDS bulk load for staging, `EXISTS (… EXCEPT …)` for change detection.
 * knex drives tedious directly.
 *
 * @example new MssqlDialect('mssql://etl:S3cret%21@db.internal:1433/etl', { requestTimeoutMs: 60_000 })
 */
export class MssqlDialect implements DialectAdapter {
  readonly name = 'mssql' as const;
  /** Skips locked rows by the table hints `UPDLOCK, READPAST, ROWLOCK`. */
  readonly skipLocked: SkipLockedSyntax = { tableHint: ' with (updlock, readpast, rowlock)', suffix: '' };
  readonly supportsReturning = false;
  readonly appLockEndsWithSession = true;
  readonly transactionalDdl = true;
  readonly supportsOutput = true;
  readonly #settings: MssqlConnectionSettings;
  readonly #requestTimeoutMs: number;

  /** @throws UsageError for a malformed URL or an unknown URL parameter. */
  constructor(url: string, options: MssqlDialectOptions = {}) {
    this.#settings = parseMssqlUrl(url);
    this.#requestTimeoutMs = options.requestTimeoutMs ?? MSSQL_DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** Pool max 8: the app lock has its own connection, and a staging load holds one pooled connection. */
  knexConfig(): Knex.Config {
    return {
      client: 'mssql',
      connection: mssqlKnexConnection(this.#settings, this.#requestTimeoutMs),
      pool: { min: 0, max: 8 },
    };
  }

  /** `single_user with rollback immediate` ends the sessions still connected, so the drop is not refused. */
  serverDatabaseSql(name: string): { create: string; drop: string } {
    return { create: `create database ${name}`, drop: `alter database ${name} set single_user with rollback immediate; drop database ${name}` };
  }

  addColumn(table: Knex.TableBuilder, name: string, spec: ColumnSpec): Knex.ColumnBuilder {
    return addMssqlColumn(table, name, spec);
  }

  columnTypeName(name: string, spec: ColumnSpec): string {
    return mssqlColumnTypeName(name, spec);
  }

  async createEmptyCopy(knex: Knex | Knex.Transaction, table: string, copy: string): Promise<void> {
    await knex.raw('select * into ?? from ?? where 1 = 0', [copy, table]);
  }

  async readIndexNames(knex: Knex | Knex.Transaction, table: string): Promise<string[]> {
    const result: unknown = await knex.raw('select name from sys.indexes where object_id = object_id(?) and name is not null', [table]);
    return (result as { name: string }[]).map((row) => row.name);
  }

  readTableColumns(knex: Knex | Knex.Transaction, table: string): Promise<TableColumn[] | undefined> {
    return readMssqlTableColumns(knex, table);
  }

  toDriverValue(spec: ColumnSpec, value: unknown): unknown {
    return toMssqlValue(spec, value);
  }

  fromDriverValue(spec: ColumnSpec, value: unknown): unknown {
    return fromMssqlValue(spec, value);
  }

  fromDriverJsonText(value: unknown): string | null {
    return jsonTextValue(value);
  }

  tryAcquireAppLock(_knex: Knex, request: AppLockRequest): Promise<AppLockAttempt> {
    return tryAcquireMssqlAppLock(this.#settings, this.#requestTimeoutMs, request);
  }

  /** The app lock's session lock under the migration's name: it needs no idem table. */
  tryAcquireMigrationLock(knex: Knex, request: AppLockRequest): Promise<AppLockAttempt> {
    return this.tryAcquireAppLock(knex, request);
  }

  /** Nothing is kept: each app lock's connection ends with its release. */
  /** `KILL` of the session holding the APPLICATION lock, found as `APPLOCK_HOLDER_SQL` names a holder. */
  async endAppLockHolder(knex: Knex, name: string): Promise<boolean> {
    const rows = (await knex.raw(
      `select top (1) l.request_session_id as session_id from sys.dm_tran_locks l
       where l.resource_type = N'APPLICATION' and l.resource_database_id = db_id() and l.request_owner_type = N'SESSION'
         and l.request_mode = N'X' and l.request_status = N'GRANT' and l.request_session_id <> @@spid
         and charindex(left(?, 32), l.resource_description) > 0`,
      [mssqlAppLockResource(name)],
    )) as { session_id: number }[];
    if (!rows[0]) return false;
    await knex.raw(`kill ${Number(rows[0].session_id)}`);
    return true;
  }

  async close(): Promise<void> {}

  bulkLoad(knex: Knex, table: string, columns: readonly string[], batches: AsyncIterable<unknown[][]>, specs: readonly ColumnSpec[]): Promise<number> {
    if (specs.length !== columns.length) throw new Error(`bulkLoad(${table}): ${columns.length} columns but ${specs.length} specs`);
    const load: MssqlLoadColumn[] = columns.map((name, i) => ({ name, spec: specs[i]! }));
    return this.#settings.stagingLoad === 'insert' ? mssqlInsertRows(knex, table, load, batches) : mssqlBulkLoad(knex, table, load, batches);
  }

  /** `DELETE`: `TRUNCATE TABLE` needs ALTER permission on the table, which a run need not have. */
  async emptyStaging(knex: Knex, staging: string): Promise<void> {
    await knex(staging).delete();
  }

  /** The same `DELETE`. */
  clearStaging(knex: Knex, staging: string): Promise<void> {
    return this.emptyStaging(knex, staging);
  }

  /** Nothing to do: SQL Server updates statistics by itself before compiling against a table that changed (AUTO_UPDATE_STATISTICS). */
  async refreshStatistics(): Promise<void> {}

  async deleteSupersededStagingRows(db: Knex | Knex.Transaction, staging: string): Promise<number> {
    return rowCountOf(await db.raw(withRowCount(supersededStagingRowsSql(staging, quoteMssqlIdentifier))));
  }

  upsert(trx: Knex.Transaction, plan: UpsertPlan): Promise<UpsertCounts> {
    return mssqlUpsert(trx, plan);
  }

  /** `sysutcdatetime()` plus the offset: instants are `datetime2(3)` holding UTC. */
  instantFromNowSql(offsetMs: number): SqlFragment {
    return { sql: 'dateadd(millisecond, ?, sysutcdatetime())', bindings: [Math.round(offsetMs)] };
  }

  /** Error 1205, chosen as a deadlock victim (the request may be rerun), or 1222, lock request timeout: https://learn.microsoft.com/sql/relational-databases/errors-events/mssqlserver-1205-database-engine-error */
  isLockConflict(error: unknown): boolean {
    const e = error as { number?: unknown; originalError?: { info?: { number?: unknown } } } | null;
    const number = e?.number ?? e?.originalError?.info?.number;
    return number === 1205 || number === 1222;
  }

  /** tedious (through knex) answers a raw statement with the rows. */
  rawRows(result: unknown): Record<string, unknown>[] {
    return result as Record<string, unknown>[];
  }

  diskFull(error: unknown): string | undefined {
    const e = error as { number?: unknown; originalError?: { info?: { number?: unknown } } } | null;
    const number = e?.number ?? e?.originalError?.info?.number;
    return number === 1105 || number === 9002 ? `the database's data or log file is full (SQL Server error ${number}: ${driverWords(error)})` : undefined;
  }

  describeSettings(): Readonly<Record<string, unknown>> {
    return { requestTimeoutMs: this.#requestTimeoutMs, stagingLoad: this.#settings.stagingLoad };
  }

  streamSnapshotRows(knex: Knex, query: SqlFragment, fetchRows: number): AsyncIterable<SnapshotRow> {
    return streamSnapshot(knex, MSSQL_SNAPSHOT_READ, query, fetchRows);
  }

  isRejectedStatement(error: unknown): boolean {
    return isRejectedMssqlStatement(error);
  }
}
