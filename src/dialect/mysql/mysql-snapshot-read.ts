import type { Knex } from 'knex';
import type { SqlFragment } from '../dialect-adapter.ts';
import type { SnapshotReadSteps, SnapshotRow } from '../snapshot-read.ts';

/**
 * MySQL / MariaDB: `REPEATABLE READ`, `START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY`
 * (InnoDB's consistent read, its snapshot taken at once rather than at the first read;
 * https://mariadb.com/kb/en/start-transaction/), rows streamed by mysql2 as they arrive (its
 * query stream, paused while the stage is busy), never the whole result.
 */
export const MYSQL_SNAPSHOT_READ: SnapshotReadSteps = {
  begin: ['SET TRANSACTION ISOLATION LEVEL REPEATABLE READ', 'START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY'],
  rows: (knex: Knex, connection: unknown, query: SqlFragment, fetchRows: number): AsyncIterable<SnapshotRow> =>
    knex.raw(query.sql, query.bindings as Knex.Value[]).connection(connection).stream({ highWaterMark: fetchRows }),
  end: 'COMMIT',
};

/**
 * SQLSTATE class 42 (42S22 no such column, 42S02 no such table, 42000 syntax or access denied):
 * the statement itself is refused. https://mariadb.com/kb/en/mariadb-error-code-reference/
 */
export function isRejectedMysqlStatement(error: unknown): boolean {
  const sqlState = (error as { sqlState?: unknown } | null)?.sqlState;
  return typeof sqlState === 'string' && sqlState.startsWith('42');
}
