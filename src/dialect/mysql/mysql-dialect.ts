import type { Knex } from 'knex';
import type { TableColumn } from '../table-column.ts';
import type { Connection, ConnectionOptions, RowDataPacket } from 'mysql2';
import type { ColumnSpec } from '../../column/column-type.ts';
import type { AppLockAttempt, AppLockRequest } from '../app-lock.ts';
import type { DialectAdapter, SqlFragment } from '../dialect-adapter.ts';
import { driverWords } from '../driver-words.ts';
import { streamSnapshot, type SnapshotRow } from '../snapshot-read.ts';
import { MYSQL_SNAPSHOT_READ, isRejectedMysqlStatement } from './mysql-snapshot-read.ts';
import { mysqlColumnTypeName, readMysqlTableColumns } from './mysql-table-columns.ts';
import type { SkipLockedSyntax } from '../skip-locked-syntax.ts';
import type { UpsertCounts, UpsertPlan } from '../upsert-plan.ts';
import { tryAcquireMysqlAppLock } from './mysql-app-lock.ts';
import { mysqlLockName } from './mysql-lock-name.ts';
import { mysqlBulkLoad, type MysqlLoadSettings } from './mysql-bulk-load.ts';
import {
  addMysqlColumn,
  exactCollation,
  fromMysqlValue,
  MYSQL_SESSION_SQL,
  mysqlConnectionOptions,
  toMysqlValue,
  type MysqlFlavour,
} from './mysql-types.ts';
import { assertSupportedMysqlServer } from './mysql-server-version.ts';
import { mysqlUpsert, quoteMysqlIdentifier, type MysqlRawResult } from './mysql-upsert.ts';
import { jsonTextValue } from '../json-text-value.ts';

/** Asked once per process, on the pool's first connection: the version and the bulk load's settings. */
const SERVER_SQL = 'select version() as version, @@local_infile as local_infile, @@max_allowed_packet as max_allowed_packet';

/** What idem learns about the server on its first pooled connection. */
interface MysqlServer extends MysqlLoadSettings {
  readonly flavour: MysqlFlavour;
}

/**
 * MySQL 8.0.17+ and MariaDB 10.6+ through mysql2 (`DATABASE_URL=mysql://…` or `mariadb://…`):
 * `GET_LOCK` app lock on a dedicated session, `LOAD DATA LOCAL INFILE` for staging (multi-row
 * INSERTs when the server refuses `LOCAL`), `<=>` for change detection, text in an exact,
 * NO PAD collation, and ledger claims by one `UPDATE … ORDER BY id LIMIT n` (see `ledgerClaimStatement`).
 *
 * The adapter learns the server on the pool's first connection (`afterCreate`): its version,
 * refusing a server older than `MYSQL_MINIMUM_RELEASES` with a usage error (exit 2) before
 * idem uses it; its flavour, because the two servers name the collation differently; and
 * `@@local_infile` and `@@max_allowed_packet`. `addColumn` runs while knex compiles a
 * `createTable`, which knex does only on an acquired connection, so the flavour is always known
 * by then.
 *
 * @example new MysqlDialect('mariadb://etl:secret@db.internal:3306/etl')
 */
export class MysqlDialect implements DialectAdapter {
  readonly name = 'mysql' as const;
  /**
   * `FOR UPDATE SKIP LOCKED` (MySQL 8.0+, MariaDB 10.6+). Ledger claims do not use it here: without
   * RETURNING it would take a second statement in an open transaction (see `ledgerClaimStatement`).
   */
  readonly skipLocked: SkipLockedSyntax = { tableHint: '', suffix: ' for update skip locked' };
  readonly supportsReturning = false;
  readonly appLockEndsWithSession = true;
  readonly transactionalDdl = false;
  readonly supportsOutput = false;
  readonly #options: ConnectionOptions;
  #server: MysqlServer | undefined;

  constructor(url: string) {
    this.#options = mysqlConnectionOptions(url);
  }

  knexConfig(): Knex.Config {
    const learned = (): boolean => this.#server !== undefined;
    const learn = (server: MysqlServer): void => {
      this.#server ??= server;
    };
    return {
      client: 'mysql2',
      connection: { ...this.#options } as Knex.MySql2ConnectionConfig,
      pool: {
        min: 0,
        max: 8,
        afterCreate(connection: Connection, done: (error: Error | null, connection: Connection) => void) {
          // knex drops a connection whose afterCreate failed without closing it: close it here, or
          // its socket holds the process open.
          const fail = (error: Error): void => {
            connection.destroy();
            done(error, connection);
          };
          connection.query(MYSQL_SESSION_SQL, (setError) => {
            if (setError) return fail(setError);
            if (learned()) return done(null, connection);
            connection.query<RowDataPacket[]>(SERVER_SQL, (selectError, rows) => {
              if (selectError) return fail(selectError);
              const row = rows[0]!;
              let flavour: MysqlFlavour;
              try {
                flavour = assertSupportedMysqlServer(String(row.version));
              } catch (error) {
                return fail(error as Error);
              }
              learn({ flavour, localInfile: Number(row.local_infile) === 1, maxAllowedPacket: Number(row.max_allowed_packet) });
              done(null, connection);
            });
          });
        },
      },
    };
  }

  /** The server as learned on the first connection. */
  #learned(): MysqlServer {
    if (!this.#server) throw new Error('MysqlDialect: the server is learned on the first pooled connection; run a query before this');
    return this.#server;
  }

  /** MySQL/MariaDB drop a database with sessions still connected to it. */
  serverDatabaseSql(name: string): { create: string; drop: string } {
    return { create: `create database ${name} character set utf8mb4`, drop: `drop database if exists ${name}` };
  }

  addColumn(table: Knex.TableBuilder, name: string, spec: ColumnSpec): Knex.ColumnBuilder {
    return addMysqlColumn(table, name, spec, exactCollation(this.#learned().flavour));
  }

  columnTypeName(_name: string, spec: ColumnSpec): string {
    return mysqlColumnTypeName(spec);
  }

  async createEmptyCopy(knex: Knex | Knex.Transaction, table: string, copy: string): Promise<void> {
    await knex.raw('create table ?? as select * from ?? where 1 = 0', [copy, table]);
  }

  async readIndexNames(knex: Knex | Knex.Transaction, table: string): Promise<string[]> {
    const result: unknown = await knex.raw('select distinct index_name as name from information_schema.statistics where table_schema = database() and table_name = ?', [table]);
    return ((result as [{ name: string }[], unknown])[0]).map((row) => row.name);
  }

  readTableColumns(knex: Knex | Knex.Transaction, table: string): Promise<TableColumn[] | undefined> {
    return readMysqlTableColumns(knex, table);
  }

  toDriverValue(spec: ColumnSpec, value: unknown): unknown {
    return toMysqlValue(spec, value);
  }

  fromDriverValue(spec: ColumnSpec, value: unknown): unknown {
    return fromMysqlValue(spec, value);
  }

  fromDriverJsonText(value: unknown): string | null {
    return jsonTextValue(value);
  }

  tryAcquireAppLock(_knex: Knex, request: AppLockRequest): Promise<AppLockAttempt> {
    return tryAcquireMysqlAppLock(this.#options, request);
  }

  /** The app lock's session lock under the migration's name: it needs no idem table. */
  tryAcquireMigrationLock(knex: Knex, request: AppLockRequest): Promise<AppLockAttempt> {
    return this.tryAcquireAppLock(knex, request);
  }

  /** `KILL` of the connection `IS_USED_LOCK` names (the lock's name carries the database, see `mysqlLockName`). */
  async endAppLockHolder(knex: Knex, name: string): Promise<boolean> {
    const [[row]] = (await knex.raw('select database() as db')) as [{ db: string | null }[]];
    const [[lock]] = (await knex.raw('select is_used_lock(?) as holder', [mysqlLockName(row?.db ?? '', name)])) as [{ holder: number | null }[]];
    if (lock?.holder === null || lock?.holder === undefined) return false;
    await knex.raw(`kill ${Number(lock.holder)}`);
    return true;
  }

  /** Nothing is kept: each app lock's connection ends with its release. */
  async close(): Promise<void> {}

  /** `specs` is not needed: `LOAD DATA` and INSERT convert text to each column's own type. */
  bulkLoad(knex: Knex, table: string, columns: readonly string[], batches: AsyncIterable<unknown[][]>, _specs?: readonly ColumnSpec[]): Promise<number> {
    return mysqlBulkLoad(knex, table, columns, batches, () => this.#learned());
  }

  /** `DELETE`: InnoDB purges deleted rows in the background; `TRUNCATE` would need the DROP privilege. */
  async emptyStaging(knex: Knex, staging: string): Promise<void> {
    await knex(staging).delete();
  }

  /** The same `DELETE`. */
  clearStaging(knex: Knex, staging: string): Promise<void> {
    return this.emptyStaging(knex, staging);
  }

  /** Nothing to do: InnoDB samples its statistics itself, after large changes (innodb_stats_auto_recalc). */
  async refreshStatistics(): Promise<void> {}

  /** MySQL cannot delete from a table its subquery reads (error 1093), so the table joins itself. */
  async deleteSupersededStagingRows(db: Knex | Knex.Transaction, staging: string): Promise<number> {
    const q = quoteMysqlIdentifier;
    const same = (column: string): string => `later.${q(column)} = s.${q(column)}`;
    const [result] = (await db.raw(
      `delete s from ${q(staging)} s join ${q(staging)} later on ${same('source_system')} and ${same('source_reference')} and later.${q('seq')} > s.${q('seq')}`,
    )) as MysqlRawResult;
    return result.affectedRows;
  }

  upsert(trx: Knex.Transaction, plan: UpsertPlan): Promise<UpsertCounts> {
    return mysqlUpsert(trx, plan);
  }

  /** `utc_timestamp(3)` plus the offset: instants are `datetime(3)` holding UTC. */
  instantFromNowSql(offsetMs: number): SqlFragment {
    return { sql: 'date_add(utc_timestamp(3), interval ? microsecond)', bindings: [Math.round(offsetMs) * 1000] };
  }

  /** ER_LOCK_DEADLOCK (1213) or ER_LOCK_WAIT_TIMEOUT (1205): https://mariadb.com/kb/en/mariadb-error-code-reference/ */
  isLockConflict(error: unknown): boolean {
    const errno = (error as { errno?: unknown } | null)?.errno;
    return errno === 1213 || errno === 1205;
  }

  /** mysql2 answers a raw statement with `[rows, fields]`. */
  rawRows(result: unknown): Record<string, unknown>[] {
    return (result as [Record<string, unknown>[], unknown])[0];
  }

  diskFull(error: unknown): string | undefined {
    const e = error as { errno?: unknown; code?: unknown; sqlState?: unknown } | null;
    if (typeof e?.sqlState !== 'string') return undefined; // not the server's answer (a Node system error has no SQLSTATE)
    const words = driverWords(error);
    // 28 is ENOSPC, which the server reports inside other errors ("Got error 28 …", "Error writing file … (Errcode: 28 …)").
    if (e.errno !== 1114 && e.errno !== 1021 && !/\b(error|errcode:?) 28\b|No space left on device/i.test(words)) return undefined;
    return `the database server's disk or a table's space is full (MySQL/MariaDB error ${String(e.errno)} ${String(e.code)}: ${words})`;
  }

  describeSettings(): Readonly<Record<string, unknown>> {
    return {};
  }

  streamSnapshotRows(knex: Knex, query: SqlFragment, fetchRows: number): AsyncIterable<SnapshotRow> {
    return streamSnapshot(knex, MYSQL_SNAPSHOT_READ, query, fetchRows);
  }

  isRejectedStatement(error: unknown): boolean {
    return isRejectedMysqlStatement(error);
  }
}
