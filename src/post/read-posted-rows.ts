import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { PostedRow } from './destination-definition.ts';
import type { LedgerItem } from './ledger-item.ts';
import type { Queryable } from './ledger-queries.ts';

/**
 * The target rows the items post, keyed by ledger item id, with canonical values. An item whose
 * record has changed again since it was enqueued is absent (its version is superseded).
 */
export async function readPostedRows(q: Queryable, pipeline: PipelineDefinition, items: readonly LedgerItem[]): Promise<Map<number, PostedRow>> {
  const rows = new Map<number, PostedRow>();
  if (items.length === 0) return rows;
  const columns = Object.entries(pipeline.columns);
  const found = (await q.knex(pipeline.tables.target)
    .select('source_system', 'source_reference', 'row_hash', ...columns.map(([name]) => name))
    // The key columns let the target's unique (source_system, source_reference) index serve it.
    .whereIn('source_system', [...new Set(items.map((i) => i.sourceSystem))])
    .whereIn('source_reference', items.map((i) => i.sourceReference))
    .whereIn('row_hash', items.map((i) => i.version))) as Record<string, unknown>[];
  const byVersion = new Map(found.map((row) => [`${row.source_system}\n${row.source_reference}\n${row.row_hash}`, row]));
  for (const item of items) {
    const row = byVersion.get(`${item.sourceSystem}\n${item.sourceReference}\n${item.version}`);
    if (!row) continue;
    rows.set(item.id, {
      sourceSystem: item.sourceSystem,
      sourceReference: item.sourceReference,
      version: item.version,
      values: Object.fromEntries(columns.map(([name, spec]) => [name, q.adapter.fromDriverValue(spec, row[name])])),
    });
  }
  return rows;
}
