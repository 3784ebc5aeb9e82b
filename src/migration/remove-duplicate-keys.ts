import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Database } from '../db/database.ts';
import { UsageError } from '../errors/usage-error.ts';
import { keyedRows, readKeyedTableColumns } from './find-duplicate-keys.ts';

/** Which row of a group of rows sharing a key stays: the one with the greatest (`newest`) or least (`oldest`) `by` value. */
export type KeepRule = 'newest' | 'oldest';

/** Options of {@link removeDuplicateKeys}. */
export interface RemoveDuplicateKeysOptions {
  readonly table: string;
  /** The columns that should be unique together. */
  readonly key: readonly string[];
  readonly keep: KeepRule;
  /** The column `keep` compares (an update time, a load id). NULL counts as the oldest. */
  readonly by: string;
  /** Delete the other rows and create the unique index; otherwise only plan. @defaultValue false */
  readonly apply?: boolean;
  /** The most groups the plan lists (all are removed). @defaultValue 20 */
  readonly maxGroups?: number;
}

/** One group of rows sharing a key: the row that stays, and those that go. Rows hold the primary key, the key and `by`. */
export interface DuplicateGroupPlan {
  readonly key: Readonly<Record<string, unknown>>;
  readonly kept: Readonly<Record<string, unknown>>;
  readonly removed: readonly Readonly<Record<string, unknown>>[];
}

/** The plan of {@link removeDuplicateKeys}, and what `apply` did. */
export interface DuplicateRemoval {
  readonly table: string;
  readonly key: readonly string[];
  readonly keep: KeepRule;
  readonly by: string;
  /** The primary key column that names each row. */
  readonly primaryKey: string;
  readonly groupCount: number;
  /** Rows that go (that went, with `apply`). */
  readonly removeCount: number;
  /** The first `maxGroups` groups, by key. */
  readonly groups: readonly DuplicateGroupPlan[];
  /** The table the removed rows are copied to first: `<table>_duplicates`. */
  readonly copyTable: string;
  /** The unique index on the key: `<table>_<key columns>_uq`. */
  readonly uniqueIndex: string;
  /** With `apply`: whether the unique index was created now (false: it existed). */
  readonly indexCreated?: boolean;
  readonly applied: boolean;
}

/** Rows per `INSERT … SELECT` and `DELETE` statement. */
const BATCH_ROWS = 500;
/** PostgreSQL cuts identifiers at 63 bytes, MySQL refuses more than 64: names idem makes stay under both. */
const MAX_NAME = 60;

/** `<table>_<suffix>`, cut with a hash of the whole where it would be longer than {@link MAX_NAME}. */
function derivedName(table: string, suffix: string): string {
  const name = `${table}_${suffix}`;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** The name of the unique index `idem duplicates --apply` creates on a table's key. */
export function duplicateKeyIndexName(table: string, key: readonly string[]): string {
  return derivedName(table, `${key.join('_')}_uq`);
}

/**
 * The rows of the keys more than one row holds, each with its primary key, key and `by` values
 * and its rank in its key (`idem_rank`, 1 for the row that stays), ordered by key and rank:
 * `ROW_NUMBER()` and `COUNT(*)` over `PARTITION BY key`, which every dialect idem supports has
 * (PostgreSQL, MySQL 8 and MariaDB 10.2, SQLite 3.25, SQL Server). NULL in `by` ranks last.
 */
export function rankedDuplicateRows(
  knex: Knex | Knex.Transaction,
  spec: { readonly table: string; readonly key: readonly string[]; readonly keep: KeepRule; readonly by: string; readonly primaryKey: string },
): Knex.QueryBuilder {
  const { table, key, keep, by, primaryKey } = spec;
  const shape = [...new Set([primaryKey, ...key, by])];
  const partition = key.map(() => '??').join(', ');
  const direction = keep === 'newest' ? 'desc' : 'asc';
  const ranked = keyedRows(knex, table, key)
    .select(shape)
    .select(knex.raw(`row_number() over (partition by ${partition} order by case when ?? is null then 1 else 0 end, ?? ${direction}, ?? asc) as ??`, [...key, by, by, primaryKey, 'idem_rank']))
    .select(knex.raw(`count(*) over (partition by ${partition}) as ??`, [...key, 'idem_count']));
  return knex
    .from(ranked.as('r'))
    .select(shape)
    .select('idem_rank')
    .where('idem_count', '>', 1)
    .orderBy([...key.map((column) => ({ column })), { column: 'idem_rank' }]);
}

/**
 * Plans, and with `apply` carries out, keeping one row per key of an existing table: in each
 * group of rows sharing the key, `ROW_NUMBER() OVER (PARTITION BY key ORDER BY by DESC|ASC,
 * primary key)` picks the row that stays (ties on `by` go to the lowest primary key). With
 * `apply`, in ONE transaction: the other rows are copied to `<table>_duplicates` (created with
 * the table's columns when missing), deleted, and the unique index on the key is created, so a
 * duplicate arriving meanwhile rolls it all back. MySQL and MariaDB commit DDL at once
 * (`transactionalDdl`): there the copy table is created before, and the index after, the
 * transaction. Rows with a NULL in the key are not duplicates and stay.
 *
 * @throws UsageError for a missing table or column, a table without a one-column primary key
 *   (nothing else names a row on every dialect), or a copy table whose columns differ.
 */
export async function removeDuplicateKeys(db: Database, options: RemoveDuplicateKeysOptions): Promise<DuplicateRemoval> {
  const { table, key, keep, by, apply = false, maxGroups = 20 } = options;
  const columns = await readKeyedTableColumns(db, table, key, [by]);
  const primaryKeys = columns.filter((column) => column.primaryKey).map((column) => column.name);
  if (primaryKeys.length !== 1) {
    throw new UsageError(
      `table ${table} has ${primaryKeys.length === 0 ? 'no primary key' : `a primary key of ${primaryKeys.length} columns (${primaryKeys.join(', ')})`}: ` +
        '--keep needs a one-column primary key to name the rows it keeps and removes; remove the duplicates by hand',
    );
  }
  const primaryKey = primaryKeys[0]!;
  const copyTable = derivedName(table, 'duplicates');
  const uniqueIndex = duplicateKeyIndexName(table, key);
  const { adapter } = db;

  const work = async (trx: Knex.Transaction): Promise<DuplicateRemoval> => {
    const rows = (await rankedDuplicateRows(trx, { table, key, keep, by, primaryKey })) as Record<string, unknown>[];
    const groups: DuplicateGroupPlan[] = [];
    const removeIds: unknown[] = [];
    let groupCount = 0;
    let shownRemoved: Record<string, unknown>[] | undefined;
    for (const row of rows) {
      const { idem_rank: rank, ...plain } = row;
      if (Number(rank) === 1) {
        groupCount += 1;
        shownRemoved = groups.length < maxGroups ? [] : undefined;
        if (shownRemoved) groups.push({ key: Object.fromEntries(key.map((name) => [name, row[name]])), kept: plain, removed: shownRemoved });
        continue;
      }
      removeIds.push(row[primaryKey]);
      shownRemoved?.push(plain);
    }
    const plan = { table, key, keep, by, primaryKey, groupCount, removeCount: removeIds.length, groups, copyTable, uniqueIndex, applied: apply };
    if (!apply) return plan;
    if (adapter.transactionalDdl && removeIds.length > 0) await prepareCopyTable(trx);
    for (let i = 0; i < removeIds.length; i += BATCH_ROWS) {
      const batch = removeIds.slice(i, i + BATCH_ROWS) as Knex.Value[];
      await trx(copyTable).insert(trx(table).select('*').whereIn(primaryKey, batch));
      await trx(table).whereIn(primaryKey, batch).delete();
    }
    if (!adapter.transactionalDdl) return plan;
    return { ...plan, indexCreated: await createUniqueIndex(trx) };
  };

  const createUniqueIndex = async (knex: Knex | Knex.Transaction): Promise<boolean> => {
    if ((await adapter.readIndexNames(knex, table)).includes(uniqueIndex)) return false;
    await knex.schema.alterTable(table, (t) => t.unique([...key], { indexName: uniqueIndex }));
    return true;
  };

  const prepareCopyTable = async (knex: Knex | Knex.Transaction): Promise<void> => {
    const copyColumns = await adapter.readTableColumns(knex, copyTable);
    if (copyColumns === undefined) return adapter.createEmptyCopy(knex, table, copyTable);
    const expected = columns.map((column) => column.name).join(', ');
    const found = copyColumns.map((column) => column.name).join(', ');
    if (found !== expected) throw new UsageError(`table ${copyTable} exists with other columns (${found}) than ${table} (${expected}): rename or drop it, then run again`);
  };

  if (apply && !adapter.transactionalDdl) {
    await prepareCopyTable(db.knex);
    const removal = await db.knex.transaction(work);
    // After the commit: a row sharing a key that arrived in between fails this, and a rerun removes it.
    return { ...removal, indexCreated: await createUniqueIndex(db.knex) };
  }
  return db.knex.transaction(work);
}
