import type { Knex } from 'knex';
import type { SqlFragment } from '../dialect-adapter.ts';
import type { SnapshotReadSteps, SnapshotRow } from '../snapshot-read.ts';

/**
 * SQL Server: `SNAPSHOT` isolation (row versioning: the transaction sees the database as of its
 * first read; https://learn.microsoft.com/sql/t-sql/statements/set-transaction-isolation-level-transact-sql).
 * It needs `ALTER DATABASE … SET ALLOW_SNAPSHOT_ISOLATION ON`; where that is off the server
 * refuses the first read with error 3952, which says so, and the run exits 2 with its words.
 * Rows stream from tedious (knex's `stream()`, `request.stream = true`).
 */
export const MSSQL_SNAPSHOT_READ: SnapshotReadSteps = {
  begin: ['SET TRANSACTION ISOLATION LEVEL SNAPSHOT', 'BEGIN TRANSACTION'],
  rows: (knex: Knex, connection: unknown, query: SqlFragment, fetchRows: number): AsyncIterable<SnapshotRow> =>
    knex.raw(query.sql, query.bindings as Knex.Value[]).connection(connection).stream({ highWaterMark: fetchRows }),
  end: 'COMMIT',
};

/**
 * Error numbers of a statement SQL Server refuses as written: 102 and 156 syntax, 207 no such
 * column, 208 no such object, 229 permission denied, 3952 snapshot isolation not allowed in the
 * database. https://learn.microsoft.com/sql/relational-databases/errors-events/database-engine-events-and-errors
 */
const REJECTED_NUMBERS: ReadonlySet<number> = new Set([102, 156, 207, 208, 229, 3952]);

/** Whether SQL Server refused the statement itself (see {@link REJECTED_NUMBERS}). */
export function isRejectedMssqlStatement(error: unknown): boolean {
  const e = error as { number?: unknown; originalError?: { info?: { number?: unknown } } } | null;
  const number = e?.number ?? e?.originalError?.info?.number;
  return typeof number === 'number' && REJECTED_NUMBERS.has(number);
}
