import type { Knex } from 'knex';
import type { SqlFragment } from '../dialect-adapter.ts';
import type { SnapshotReadSteps, SnapshotRow } from '../snapshot-read.ts';

/** The cursor a snapshot read declares: one per connection, inside its own transaction. */
const CURSOR = 'idem_source_rows';

/**
 * PostgreSQL: `REPEATABLE READ, READ ONLY` (one snapshot for the whole transaction, taken at its
 * first statement; https://www.postgresql.org/docs/current/transaction-iso.html), rows fetched
 * from a server-side cursor `fetchRows` at a time (`DECLARE … NO SCROLL CURSOR`, `FETCH FORWARD
 * n`; https://www.postgresql.org/docs/current/sql-declare.html), so memory holds one batch.
 */
export const POSTGRES_SNAPSHOT_READ: SnapshotReadSteps = {
  begin: ['BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY'],
  async *rows(knex: Knex, connection: unknown, query: SqlFragment, fetchRows: number): AsyncGenerator<SnapshotRow> {
    await knex.raw(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${query.sql}`, query.bindings as Knex.Value[]).connection(connection);
    for (;;) {
      const batch = (await knex.raw(`FETCH FORWARD ${fetchRows} FROM ${CURSOR}`).connection(connection)) as { rows: SnapshotRow[] };
      if (batch.rows.length === 0) return;
      yield* batch.rows;
    }
  },
  end: 'COMMIT',
};

/**
 * SQLSTATE class 42, "syntax error or access rule violation" (42703 no such column, 42P01 no such
 * table, 42601 syntax, 42501 permission): the statement itself is refused.
 * https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
export function isRejectedPostgresStatement(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('42');
}
