import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { quoteAnsiIdentifier as q } from '../quote-ansi-identifier.ts';

/**
 * Loads rows with one prepared INSERT run inside one transaction per batch (better-sqlite3 is
 * synchronous, so this is the fastest path SQLite has). The single pooled connection is taken
 * per batch, never for the whole load: the lease renewal needs it in between.
 */
export async function sqliteBulkLoad(
  knex: Knex,
  table: string,
  columns: readonly string[],
  batches: AsyncIterable<unknown[][]>,
): Promise<number> {
  const sql = `insert into ${q(table)} (${columns.map(q).join(', ')}) values (${columns.map(() => '?').join(', ')})`;
  let rows = 0;
  // Prepared once per connection (the pool holds one), not per batch: preparing the statement
  // for every batch (a year's invoices make about a thousand) took 0.4 s of the import's CPU.
  let prepared: { connection: Database.Database; insertBatch: (items: unknown[][]) => void } | undefined;
  for await (const batch of batches) {
    const connection = (await knex.client.acquireConnection()) as Database.Database;
    try {
      if (prepared?.connection !== connection) {
        const insert = connection.prepare(sql);
        const insertBatch = connection.transaction((items: unknown[][]) => {
          for (const row of items) insert.run(row);
        });
        prepared = { connection, insertBatch };
      }
      prepared.insertBatch(batch);
    } finally {
      await knex.client.releaseConnection(connection);
    }
    rows += batch.length;
  }
  return rows;
}
