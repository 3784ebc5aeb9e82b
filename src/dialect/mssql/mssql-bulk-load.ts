import type { Knex } from 'knex';
import type { Connection } from 'tedious';
import type { ColumnSpec } from '../../column/column-type.ts';
import { mssqlInsertChunks } from './mssql-insert-chunk-rows.ts';
import { quoteMssqlIdentifier } from './mssql-quote-identifier.ts';
import { type MssqlBulkColumnType, mssqlBulkColumnType, toMssqlBulkValue } from './mssql-types.ts';

/** A staging column with the spec it was created with. */
export interface MssqlLoadColumn {
  readonly name: string;
  readonly spec: ColumnSpec;
}

interface DeclaredColumn extends MssqlLoadColumn {
  readonly bulk: MssqlBulkColumnType;
}

/** One TDS bulk load (`INSERT BULK`) of one batch on a tedious connection. @returns the server's row count. */
function loadBatch(connection: Connection, table: string, columns: readonly DeclaredColumn[], batch: readonly unknown[][]): Promise<number> {
  return new Promise((resolve, reject) => {
    // keepNulls: NULL stays NULL (never a column default). checkConstraints: the load needs only
    // INSERT permission, not ALTER TABLE (staging tables have no CHECK constraints to pay for).
    const bulk = connection.newBulkLoad(quoteMssqlIdentifier(table), { keepNulls: true, checkConstraints: true }, (error, rowCount) => {
      if (error) reject(error);
      else resolve(rowCount ?? batch.length);
    });
    for (const column of columns) bulk.addColumn(column.name, column.bulk.type, { ...column.bulk.options });
    connection.execBulkLoad(
      bulk,
      batch.map((row) => row.map((value, i) => toMssqlBulkValue(columns[i]!.spec, value))),
    );
  });
}

/**
 * Loads rows with a TDS bulk load (tedious `newBulkLoad` / `execBulkLoad`) on one connection
 * taken from knex's pool for the whole load, one bulk load per batch. Every column is declared
 * with the type and nullability its spec created it with (a bulk load sends typed values and
 * fails on a mismatch), so no row ever goes through 2,100-parameter INSERTs.
 * @returns the number of rows the server reports loaded.
 */
export async function mssqlBulkLoad(
  knex: Knex,
  table: string,
  columns: readonly MssqlLoadColumn[],
  batches: AsyncIterable<unknown[][]>,
): Promise<number> {
  const declared = columns.map((c) => ({ ...c, bulk: mssqlBulkColumnType(c.name, c.spec) }));
  let rows = 0;
  const connection = (await knex.client.acquireConnection()) as Connection;
  try {
    for await (const batch of batches) {
      if (batch.length > 0) rows += await loadBatch(connection, table, declared, batch);
    }
  } finally {
    await knex.client.releaseConnection(connection);
  }
  return rows;
}

/**
 * The INSERT statements the fallback path runs for some rows: multi-row INSERTs of
 * `mssqlInsertChunkRows(columns)` rows each, so none passes 2,100 parameters or 1,000 rows.
 */
export function mssqlInsertQueries(
  db: Knex | Knex.Transaction,
  table: string,
  columns: readonly MssqlLoadColumn[],
  rows: readonly unknown[][],
): Knex.QueryBuilder[] {
  const records = rows.map((row) => Object.fromEntries(columns.map((c, i) => [c.name, row[i]])));
  return [...mssqlInsertChunks(records, columns.length)].map((chunk) => db(table).insert(chunk));
}

/**
 * The fallback staging path (`DATABASE_URL=…?stagingLoad=insert`, for servers or proxies where
 * a bulk load is not allowed): parameterised multi-row INSERTs, each batch in one transaction.
 * @returns the number of rows inserted.
 */
export async function mssqlInsertRows(
  knex: Knex,
  table: string,
  columns: readonly MssqlLoadColumn[],
  batches: AsyncIterable<unknown[][]>,
): Promise<number> {
  let rows = 0;
  for await (const batch of batches) {
    await knex.transaction(async (trx) => {
      for (const query of mssqlInsertQueries(trx, table, columns, batch)) await query;
    });
    rows += batch.length;
  }
  return rows;
}
