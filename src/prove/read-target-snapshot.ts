import type { Database } from '../db/database.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';

/**
 * A pipeline's target table as comparable text: one JSON line per row, keyed by business key, with
 * canonical business values, `row_hash`, `first_run_key` and `last_changed_run_key`. `id`,
 * `created_at` and `updated_at` are left out: they differ between two databases that hold the
 * same rows.
 */
export type TargetSnapshot = ReadonlyMap<string, string>;

/** Reads the snapshot of `pipeline`'s target table. */
export async function readTargetSnapshot(db: Database, pipeline: PipelineDefinition): Promise<TargetSnapshot> {
  const columns = Object.entries(pipeline.columns);
  const rows = (await db.knex(pipeline.tables.target).select(
    'source_system', 'source_reference', ...columns.map(([name]) => name), 'row_hash', 'first_run_key', 'last_changed_run_key',
  )) as Record<string, unknown>[];
  const entries = rows.map((row): [string, string] => {
    const values = Object.fromEntries(columns.map(([name, spec]) => [name, db.adapter.fromDriverValue(spec, row[name])]));
    const key = `${String(row.source_system)} ${String(row.source_reference)}`;
    return [key, JSON.stringify({ ...values, row_hash: row.row_hash, first_run_key: row.first_run_key, last_changed_run_key: row.last_changed_run_key })];
  });
  // Sorted here, not in SQL: collations differ between dialects.
  return new Map(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
