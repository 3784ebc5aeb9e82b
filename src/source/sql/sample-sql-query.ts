import { assertDatabaseReachable } from '../../db/assert-database-reachable.ts';
import { openDatabase } from '../../db/open-database.ts';
import { UsageError } from '../../errors/usage-error.ts';

/** A query's result columns and first rows, values as JSON-like fields (instants as ISO text). */
export interface SqlSample {
  readonly fields: readonly string[];
  readonly rows: readonly Readonly<Record<string, unknown>>[];
}

/**
 * The first `limit` rows of `sql` (a select typed by whoever runs `idem new --sql`) on the
 * database at `url`, read as a derived table (`select * from (<sql>) as sample`), for `idem new`
 * to infer columns from, as it does from a CSV or JSON sample. A `Date` becomes ISO 8601 text in
 * UTC, a bigint its digits.
 * @throws UsageError naming the source when the database cannot be reached or refuses the query.
 */
export async function sampleSqlQuery(url: string, projectDir: string, sourceName: string, sql: string, limit: number): Promise<SqlSample> {
  const db = await openDatabase({ databaseUrl: url, projectDir });
  try {
    await assertDatabaseReachable(db, url, `IDEM_SOURCES "${sourceName}"`);
    let result: Record<string, unknown>[];
    try {
      result = await db.knex.select('*').from(db.knex.raw(`(${sql.trim().replace(/;+$/, '')}) as sample`)).limit(limit);
    } catch (error) {
      throw new UsageError(`source database "${sourceName}" refused the --sql query: ${(error as Error).message.split('\n')[0]}`);
    }
    const rows = result.map((row) => Object.fromEntries(Object.entries(row).map(([name, value]) => [name, value instanceof Date ? value.toISOString() : typeof value === 'bigint' ? value.toString() : value])));
    if (rows.length === 0) throw new UsageError(`the --sql query returned no rows on "${sourceName}": idem new infers the columns from its rows`);
    return { fields: Object.keys(rows[0]!), rows };
  } finally {
    await db.close();
  }
}
