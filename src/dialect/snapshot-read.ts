import type { Knex } from 'knex';
import type { SqlFragment } from './dialect-adapter.ts';

/** Rows of a snapshot read, as the driver returns them (column name → value). */
export type SnapshotRow = Record<string, unknown>;

/**
 * How a dialect reads one query in one read-only transaction that sees one snapshot of the
 * database, streamed (`DialectAdapter.streamSnapshotRows`): the statements that start and end the
 * transaction on a connection taken from the pool for the read, and how rows come off it.
 */
export interface SnapshotReadSteps {
  /** Statements run in order on the read's connection before the query. */
  readonly begin: readonly string[];
  /** The rows of `query` on `connection`, at most `fetchRows` held at a time. */
  rows(knex: Knex, connection: unknown, query: SqlFragment, fetchRows: number): AsyncIterable<SnapshotRow> | Iterable<SnapshotRow>;
  /** The statement that ends the transaction once every row is read. */
  readonly end: string;
}

/**
 * Runs `steps` on one connection of `knex`'s pool: begin, the query's rows, end. The connection
 * goes back to the pool only after the transaction ended; a read abandoned half-way (the run
 * failed) rolls back, and where even that fails the connection is destroyed (a closed session
 * ends its transaction).
 */
export async function* streamSnapshot(knex: Knex, steps: SnapshotReadSteps, query: SqlFragment, fetchRows: number): AsyncGenerator<SnapshotRow> {
  const client = knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<unknown> };
  const connection = await client.acquireConnection();
  let ended = false;
  try {
    for (const statement of steps.begin) await knex.raw(statement).connection(connection);
    yield* steps.rows(knex, connection, query, fetchRows);
    await knex.raw(steps.end).connection(connection);
    ended = true;
  } finally {
    if (!ended) await knex.raw('ROLLBACK').connection(connection).catch(() => undefined);
    await client.releaseConnection(connection);
  }
}
