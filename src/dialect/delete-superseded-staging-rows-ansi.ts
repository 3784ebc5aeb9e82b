import type { Knex } from 'knex';

/**
 * Deletes staging rows that a later row with the same key supersedes, with a correlated
 * subquery (PostgreSQL, SQLite, SQL Server; MySQL cannot read the table it deletes from).
 * @returns the number of rows deleted.
 */
export async function deleteSupersededStagingRowsAnsi(
  db: Knex | Knex.Transaction,
  staging: string,
  quote: (name: string) => string,
): Promise<number> {
  const table = quote(staging);
  const result = await db.raw(
    `delete from ${table} where exists (select 1 from ${table} later ` +
      `where later.${quote('source_system')} = ${table}.${quote('source_system')} ` +
      `and later.${quote('source_reference')} = ${table}.${quote('source_reference')} ` +
      `and later.${quote('seq')} > ${table}.${quote('seq')})`,
  );
  return affectedRows(result);
}

/** Row count of a knex.raw DML result, whatever the driver (pg rowCount, better-sqlite3 changes). */
export function affectedRows(result: unknown): number {
  const r = result as { rowCount?: number; changes?: number };
  return r.rowCount ?? r.changes ?? 0;
}
