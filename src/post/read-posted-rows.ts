import type { Queryable } from '../db/queryable.ts';
import type { LedgerItem } from '../ledger/ledger-item.ts';
import { lastPostedReferences } from '../ledger/last-posted-references.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { PostedRow } from '../destination/destination-definition.ts';
import { RawJson } from '../http/raw-json.ts';

/** A target row as the driver returned it: column name → driver value. */
export type TargetRow = Readonly<Record<string, unknown>>;

/**
 * The target rows the items post, keyed by ledger item id, as the driver returned them (turn one
 * into a {@link PostedRow} with {@link toPostedRow} when it is sent: a claimed batch waits while
 * it is sent, and driver values, a JSON column's text above all, hold far less memory than the
 * canonical values). An item whose record has changed again since it was enqueued is absent (its
 * version is superseded).
 */
export async function readTargetRows(q: Queryable, pipeline: PipelineDefinition, items: readonly LedgerItem[]): Promise<Map<number, TargetRow>> {
  const rows = new Map<number, TargetRow>();
  if (items.length === 0) return rows;
  const found = (await q.knex(pipeline.tables.target)
    .select('source_system', 'source_reference', 'row_hash', ...Object.keys(pipeline.columns))
    // The key columns let the target's unique (source_system, source_reference) index serve it.
    .whereIn('source_system', [...new Set(items.map((i) => i.sourceSystem))])
    .whereIn('source_reference', items.map((i) => i.sourceReference))
    .whereIn('row_hash', items.map((i) => i.version))) as Record<string, unknown>[];
  const byVersion = new Map(found.map((row) => [`${row.source_system}\n${row.source_reference}\n${row.row_hash}`, row]));
  for (const item of items) {
    const row = byVersion.get(`${item.sourceSystem}\n${item.sourceReference}\n${item.version}`);
    if (row) rows.set(item.id, row);
  }
  return rows;
}

/**
 * The one handler of every PostedRow's `values`, whose json columns start as the same `RawJson`
 * as in `rawJson`: each is parsed on its first read, by property, spread, `Object.entries` or
 * `JSON.stringify` alike, and kept. A destination that sends `rawJson` never parses it. (An accessor per object instead gave every row its own hidden
 * classes, which V8 allocates in old space: the post stage's heap grew by 60 MB over the year.)
 */
const PARSE_ON_READ: ProxyHandler<Record<string, unknown>> = {
  get(target, key) {
    const value: unknown = Reflect.get(target, key);
    if (!(value instanceof RawJson)) return value;
    return (target[key as string] = value.parse());
  },
  getOwnPropertyDescriptor(target, key) {
    const value: unknown = Reflect.get(target, key);
    if (value instanceof RawJson) target[key as string] = value.parse();
    return Reflect.getOwnPropertyDescriptor(target, key);
  },
};

/**
 * The row `item` posts, with canonical values, from its target row as read by
 * {@link readTargetRows}, and the remote reference of its record's last posted version (see
 * `lastPostedReferences`), if any. Its json columns are also in `rawJson`, as their text.
 */
export function toPostedRow(q: Queryable, pipeline: PipelineDefinition, item: LedgerItem, row: TargetRow, remoteReference?: string): PostedRow {
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
  return {
    sourceSystem: item.sourceSystem,
    sourceReference: item.sourceReference,
    version: item.version,
    values: new Proxy(values, PARSE_ON_READ),
    rawJson,
    ...(remoteReference === undefined ? {} : { remoteReference }),
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
