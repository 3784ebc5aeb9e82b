import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { csvLine } from '../csv-line.ts';
import { quoteAnsiIdentifier as q } from '../quote-ansi-identifier.ts';

/**
 * Loads rows with `COPY … FROM STDIN (FORMAT csv)` through pg-copy-streams on a pooled
 * connection, writing one chunk per batch (one write per line is several times slower).
 */
export async function postgresBulkLoad(
  knex: Knex,
  table: string,
  columns: readonly string[],
  batches: AsyncIterable<unknown[][]>,
): Promise<number> {
  let rows = 0;
  async function* chunks(): AsyncGenerator<string> {
    for await (const batch of batches) {
      let chunk = '';
      for (const row of batch) chunk += csvLine(row);
      rows += batch.length;
      yield chunk;
    }
  }
  const connection = (await knex.client.acquireConnection()) as pg.PoolClient;
  try {
    const copy = connection.query(copyFrom(`copy ${q(table)} (${columns.map(q).join(', ')}) from stdin with (format csv)`));
    await pipeline(Readable.from(chunks()), copy);
  } finally {
    await knex.client.releaseConnection(connection);
  }
  return rows;
}
