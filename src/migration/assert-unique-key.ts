import type { Queryable } from '../db/queryable.ts';
import { DuplicateRowsError } from '../errors/duplicate-rows-error.ts';
import { UsageError } from '../errors/usage-error.ts';
import { findDuplicateKeys } from './find-duplicate-keys.ts';

/**
 * Proves that every row of an existing table has a key and no two share one, before idem adds a
 * unique key over it (`idem migrate --make` and `adoptTable`, for a table idem did not create).
 * @throws DuplicateRowsError (exit 3) naming the `idem duplicates` command that shows them;
 *   UsageError for rows with a NULL in the key.
 */
export async function assertUniqueKey(q: Queryable, table: string, key: readonly string[]): Promise<void> {
  const report = await findDuplicateKeys(q, { table, key, maxGroups: 1, maxRowsPerGroup: 0 });
  if (report.groupCount > 0) {
    throw new DuplicateRowsError(
      `table ${table} has ${report.groupCount} key${report.groupCount === 1 ? '' : 's'} of (${key.join(', ')}) held by more than one row ` +
        `(${report.surplusRows} row${report.surplusRows === 1 ? '' : 's'} too many), so its unique key cannot be created: ` +
        `see them with idem duplicates ${table} --key ${key.join(',')}, and keep one row per key with --keep newest --by COLUMN --apply`,
      table,
      key,
    );
  }
  const unkeyed = q.knex(table).count({ n: '*' });
  unkeyed.where((where) => { for (const name of key) where.orWhereNull(name); });
  const [{ n } = { n: 0 }] = (await unkeyed) as { n: number | string }[];
  if (Number(n) > 0) throw new UsageError(`table ${table} has ${Number(n)} row${Number(n) === 1 ? '' : 's'} with no value in (${key.join(', ')}): give them one or delete them, so every row has a key`);
}
