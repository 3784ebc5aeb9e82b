import type { Queryable } from './queryable.ts';

/** Rows deleted per statement: keeps each statement small on every dialect. */
const DELETE_BATCH_ROWS = 500;

/** Deletes the rows of `table` with these ids, a batch of ids per statement. */
export async function deleteByIds(q: Queryable, table: string, ids: readonly (number | string)[]): Promise<void> {
  for (let i = 0; i < ids.length; i += DELETE_BATCH_ROWS) await q.knex(table).whereIn('id', ids.slice(i, i + DELETE_BATCH_ROWS)).delete();
}
