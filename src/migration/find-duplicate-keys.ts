import type { Knex } from 'knex';
import type { Queryable } from '../db/queryable.ts';
import type { TableColumn } from '../dialect/table-column.ts';
import { UsageError } from '../errors/usage-error.ts';

/** One key that more than one row of a table holds. */
export interface DuplicateKeyGroup {
  /** The key's value, by column. */
  readonly key: Readonly<Record<string, unknown>>;
  /** How many rows hold it (≥ 2). */
  readonly count: number;
  /** The first rows that hold it, as the driver read them, ordered by the primary key (or the key). */
  readonly rows: readonly Readonly<Record<string, unknown>>[];
}

/** What {@link findDuplicateKeys} found in a table. */
export interface DuplicateKeyReport {
  readonly table: string;
  readonly key: readonly string[];
  /** Keys held by more than one row, in the whole table. */
  readonly groupCount: number;
  /** Rows beyond the first of each such key: the rows a unique key forbids. */
  readonly surplusRows: number;
  /** The groups shown (the most rows first, then by key), at most `maxGroups`. */
  readonly groups: readonly DuplicateKeyGroup[];
}

/** Options of {@link findDuplicateKeys}. */
export interface FindDuplicateKeysOptions {
  readonly table: string;
  /** The columns that should be unique together. */
  readonly key: readonly string[];
  /** @defaultValue 20 */
  readonly maxGroups?: number;
  /** @defaultValue 10 */
  readonly maxRowsPerGroup?: number;
}

/**
 * A live table's columns, with every name of `key` (and of `extra`) among them.
 * @throws UsageError for a table that does not exist, or a name that is not a column of it.
 */
export async function readKeyedTableColumns(db: Queryable, table: string, key: readonly string[], extra: readonly string[] = []): Promise<TableColumn[]> {
  const columns = await db.adapter.readTableColumns(db.knex, table);
  if (columns === undefined) throw new UsageError(`table ${table} does not exist`);
  if (key.length === 0) throw new UsageError('--key names no column');
  const names = new Set(columns.map((column) => column.name));
  for (const name of [...key, ...extra]) {
    if (!names.has(name)) throw new UsageError(`table ${table} has no column "${name}" (its columns: ${columns.map((column) => column.name).join(', ')})`);
  }
  return columns;
}

/** Rows of `table` whose key has no NULL: rows with a NULL in the key are not duplicates of each other (a unique index lets them be). */
export function keyedRows(knex: Knex | Knex.Transaction, table: string, key: readonly string[]): Knex.QueryBuilder {
  const query = knex(table);
  for (const name of key) query.whereNotNull(name);
  return query;
}

/**
 * Finds the keys that more than one row of an existing table holds (`GROUP BY key HAVING
 * count(*) > 1`), for `idem duplicates` and for `idem migrate --make` before it adds a unique
 * key to a table idem did not create. Reads only. Rows with a NULL in a key column are left out:
 * every dialect's unique index accepts several of them (but SQL Server's, which accepts one).
 *
 * @throws UsageError for a table or a key column that does not exist.
 */
export async function findDuplicateKeys(db: Queryable, options: FindDuplicateKeysOptions): Promise<DuplicateKeyReport> {
  const { table, key, maxGroups = 20, maxRowsPerGroup = 10 } = options;
  const columns = await readKeyedTableColumns(db, table, key);
  const { knex } = db;
  const groups = () => keyedRows(knex, table, key).select([...key]).count({ count: '*' }).groupBy([...key]).havingRaw('count(*) > 1');
  const [totals] = (await knex.from(groups().as('g')).count({ groups: '*' }).sum({ rows: 'g.count' })) as { groups: number | string; rows: number | string | null }[];
  const groupCount = Number(totals?.groups ?? 0);
  const surplusRows = Number(totals?.rows ?? 0) - groupCount;
  const shown = groupCount === 0 ? [] : ((await groups().orderBy([{ column: 'count', order: 'desc' }, ...key.map((column) => ({ column, order: 'asc' as const }))]).limit(maxGroups)) as Record<string, unknown>[]);
  const primaryKey = columns.filter((column) => column.primaryKey).map((column) => column.name);
  const result: DuplicateKeyGroup[] = [];
  for (const group of shown) {
    const value = Object.fromEntries(key.map((name) => [name, group[name]]));
    const rows = maxRowsPerGroup === 0 ? [] : ((await knex(table).where(value).orderBy(primaryKey.length > 0 ? primaryKey : [...key]).limit(maxRowsPerGroup)) as Record<string, unknown>[]);
    result.push({ key: value, count: Number(group.count), rows });
  }
  return { table, key, groupCount, surplusRows, groups: result };
}
