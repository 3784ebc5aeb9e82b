import type { Knex } from 'knex';
import { canonicalValue } from '../column/canonical-value.ts';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import { PipelineError } from '../errors/pipeline-error.ts';
import type { ChildTableDefinition } from '../pipeline/child-table-definition.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';

/** Parents read per page: bounds memory to a page's lists. */
const PARENTS_PER_PAGE = 500;
/** Bound parameters per INSERT, at most: under SQL Server's 2,100 and every other dialect's limit. */
const PARAMETERS_PER_INSERT = 2000;

/** What replacing one child table's rows did: parents whose rows were replaced, rows written. */
export interface ChildCounts {
  readonly parents: number;
  readonly rows: number;
}

/** One parent's list as child rows (driver values), each item's fields read by the child's columns' rules. */
function childRows(pipeline: PipelineDefinition, child: ChildTableDefinition, adapter: DialectAdapter, reference: string, listText: string | null): Record<string, unknown>[] {
  const where = (line?: number) => `pipeline "${pipeline.name}": child table ${child.table}: ${pipeline.sourceSystem} ${reference}${line === undefined ? '' : ` line ${line}`}`;
  const list = listText === null ? [] : (JSON.parse(listText) as unknown);
  if (!Array.isArray(list)) throw new PipelineError(`${where()}: column ${child.list} must hold a list (an array of objects) or null (got ${listText!.slice(0, 80)})`);
  return list.map((item: unknown, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new PipelineError(`${where(i + 1)}: an item of ${child.list} must be an object (got ${JSON.stringify(item)})`);
    const row: Record<string, unknown> = { source_system: pipeline.sourceSystem, source_reference: reference, line_no: i + 1 };
    for (const [name, spec] of Object.entries(child.columns)) {
      try {
        const value = canonicalValue(name, spec, (item as Record<string, unknown>)[name], pipeline.timeZone);
        row[name] = value === null ? null : spec.type === 'json' ? JSON.stringify(value) : adapter.toDriverValue(spec, value);
      } catch (error) {
        throw new PipelineError(`${where(i + 1)}: ${(error as Error).message}`);
      }
    }
    return row;
  });
}

/**
 * For every parent the upsert just inserted or changed (its `updated_at` is the run's instant),
 * deletes its rows in each child table and writes its list again, in the caller's transaction
 * (the upsert's): a line removed from a corrected export disappears with the change that removed
 * it, and an unchanged parent's rows are not touched. Parents are read a page at a time, by id.
 *
 * @param now the run's instant as a driver value (what the upsert wrote in `updated_at`)
 * @throws PipelineError for a list that is not an array of objects, or an item's field that
 *   breaks its column's rule (naming the parent, the line and the column).
 */
export async function replaceChildRows(trx: Knex.Transaction, adapter: DialectAdapter, pipeline: PipelineDefinition, now: unknown): Promise<Record<string, ChildCounts>> {
  const counts: Record<string, ChildCounts> = {};
  for (const child of pipeline.children) {
    const width = 3 + Object.keys(child.columns).length;
    const rowsPerInsert = Math.max(1, Math.floor(PARAMETERS_PER_INSERT / width));
    let parents = 0;
    let rows = 0;
    for (let after = 0; ; ) {
      const page = (await trx(pipeline.tables.target)
        .select('id', 'source_reference', child.list)
        .where({ source_system: pipeline.sourceSystem, updated_at: now as Knex.Value })
        .andWhere('id', '>', after)
        .orderBy('id')
        .limit(PARENTS_PER_PAGE)) as { id: number | string; source_reference: string; [list: string]: unknown }[];
      if (page.length === 0) break;
      after = Number(page.at(-1)!.id);
      const references = page.map((parent) => parent.source_reference);
      await trx(child.table).where('source_system', pipeline.sourceSystem).whereIn('source_reference', references).delete();
      let batch: Record<string, unknown>[] = [];
      for (const parent of page) {
        for (const row of childRows(pipeline, child, adapter, parent.source_reference, adapter.fromDriverJsonText(parent[child.list]))) {
          batch.push(row);
          if (batch.length >= rowsPerInsert) {
            await trx(child.table).insert(batch);
            rows += batch.length;
            batch = [];
          }
        }
      }
      if (batch.length > 0) await trx(child.table).insert(batch);
      rows += batch.length;
      parents += page.length;
    }
    counts[child.table] = { parents, rows };
  }
  return counts;
}
