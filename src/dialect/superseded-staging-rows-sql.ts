/**
 * Standard SQL that deletes staging rows a later row with the same key supersedes, by a
 * correlated subquery (PostgreSQL, SQLite, SQL Server; MySQL cannot read the table it deletes
 * from, so its adapter joins instead).
 */
export function supersededStagingRowsSql(staging: string, quote: (name: string) => string): string {
  const table = quote(staging);
  const same = (column: string): string => `later.${quote(column)} = ${table}.${quote(column)}`;
  return (
    `delete from ${table} where exists (select 1 from ${table} later ` +
    `where ${same('source_system')} and ${same('source_reference')} and later.${quote('seq')} > ${table}.${quote('seq')})`
  );
}
