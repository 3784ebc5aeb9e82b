import { postedVersion } from '../ledger/posted-version.ts';
import type { ColumnSpecs, ColumnValues } from '../column/column-type.ts';
import type { Queryable } from '../db/queryable.ts';
import type { LedgerItem } from '../ledger/ledger-item.ts';
import { lastPostedReferences } from '../ledger/last-posted-references.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { PostedRow } from '../destination/destination-definition.ts';
import { RawJson } from '../http/raw-json.ts';
import { postedValues } from './posted-values.ts';
import { DELETED_VERSION, deletesRecords } from '../pipeline/record-deletions.ts';

/** A target row as the driver returned it: column name → driver value. */
export type TargetRow = Readonly<Record<string, unknown>>;

/**
 * The target rows the items post, keyed by ledger item id, as the driver returned them (turn one
 * into a {@link PostedRow} with {@link toPostedRow} when it is sent: a claimed batch waits while
 * it is sent, and driver values, a JSON column's text above all, hold far less memory than the
 * canonical values). An item whose record has changed again since it was enqueued is absent (its
 * version is superseded), and so is a deletion whose record is back.
 */
export async function readTargetRows(q: Queryable, pipeline: PipelineDefinition, items: readonly LedgerItem[]): Promise<Map<number, TargetRow>> {
  const rows = new Map<number, TargetRow>();
  if (items.length === 0) return rows;
  const deletes = deletesRecords(pipeline);
  const found = (await q.knex(pipeline.tables.target)
    .select('source_system', 'source_reference', 'row_hash', ...(deletes ? ['deleted_at'] : []), ...Object.keys(pipeline.columns))
    // The key columns let the target's unique (source_system, source_reference) index serve it.
    .whereIn('source_system', [...new Set(items.map((i) => i.sourceSystem))])
    .whereIn('source_reference', items.map((i) => i.sourceReference))) as Record<string, unknown>[];
  const byKey = new Map(found.map((row) => [`${row.source_system}\n${row.source_reference}`, row]));
  for (const item of items) {
    const row = byKey.get(`${item.sourceSystem}\n${item.sourceReference}`);
    if (!row) continue;
    // A deletion posts a record still deleted (one back since has a newer version); any other
    // item the content version it was enqueued for, of a record not deleted since.
    const deleted = row.deleted_at !== null && row.deleted_at !== undefined;
    const current = item.version === DELETED_VERSION ? deleted : row.row_hash === item.version && !deleted;
    if (current) rows.set(item.id, row);
  }
  return rows;
}

/**
 * The row `item` posts, with canonical values, from its target row as read by
 * {@link readTargetRows}, and the remote reference of its record's last posted version (see
 * `lastPostedReferences`), if any. Its json columns are also in `rawJson`, as their text. Its
 * `values` throw for a name that is no column, and give a json column's document lazily (see `postedValues`).
 */
export function toPostedRow<Columns extends ColumnSpecs>(q: Queryable, pipeline: PipelineDefinition<any, Columns>, item: LedgerItem, row: TargetRow, remoteReference?: string): PostedRow<ColumnValues<Columns>> {
  const values: Record<string, unknown> = {};
  const rawJson: Record<string, RawJson | null> = {};
  for (const [name, spec] of Object.entries(pipeline.columns)) {
    if (spec.type !== 'json') {
      values[name] = q.adapter.fromDriverValue(spec, row[name]);
      continue;
    }
    const text = q.adapter.fromDriverJsonText(row[name]);
    values[name] = rawJson[name] = text === null ? null : new RawJson(text);
  }
  const deleted = item.version === DELETED_VERSION;
  return {
    sourceSystem: item.sourceSystem,
    sourceReference: item.sourceReference,
    // A deletion's row holds the record's last content, and that content's version; a repost's
    // item its mark too (`postedVersion`).
    version: deleted ? String(row.row_hash) : postedVersion(item),
    values: postedValues(values),
    rawJson,
    ...(remoteReference === undefined ? {} : { remoteReference }),
    ...(deleted ? { deleted } : {}),
  };
}

/**
 * The target rows the items post, keyed by ledger item id, with canonical values and their
 * records' last posted remote references. An item whose
 * record has changed again since it was enqueued is absent (its version is superseded).
 */
export async function readPostedRows(q: Queryable, pipeline: PipelineDefinition, items: readonly LedgerItem[]): Promise<Map<number, PostedRow>> {
  const rows = await readTargetRows(q, pipeline, items);
  const references = await lastPostedReferences(q, items);
  const posted = new Map<number, PostedRow>();
  for (const item of items) {
    const row = rows.get(item.id);
    if (row) posted.set(item.id, toPostedRow(q, pipeline, item, row, references.get(item.id)));
  }
  return posted;
}
