import type { Knex } from 'knex';
import type { Queryable } from '../db/queryable.ts';
import { column } from '../column/column-type.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { DELETED_VERSION } from '../pipeline/record-deletions.ts';

/** One scope of a full snapshot as the staged read covers it. */
export interface SnapshotScopeCount {
  /** The scope column's value as the driver returned it; null for a whole-source scope. */
  readonly scope: unknown;
  /** Records of the scope live (not deleted) in the target before this run. */
  readonly live: number;
  /** Of those, the ones the read does not hold: what it would mark deleted. */
  readonly absent: number;
}

/** What a staged run would delete: computed before the upsert, read-only. */
export interface DeletionCounts {
  /** Per scope the read covers (one for a whole-source snapshot); empty without `snapshot`. */
  readonly scopes: readonly SnapshotScopeCount[];
  /** Live target records a staged tombstone names. */
  readonly tombstoned: number;
  /** Staged records that are no tombstone. */
  readonly staged: number;
  /** Live records of the whole source system in the target (an empty read's guard). */
  readonly liveInSource: number;
}

/** Whether the target row `t` has a staged row `s` of the same key (of the given versions). */
function stagedKey(knex: Queryable['knex'], staging: string, which: 'any' | 'tombstone' | 'record'): (sub: Knex.QueryBuilder) => Knex.QueryBuilder {
  return (sub) => {
    sub.select(knex.raw('1')).from(`${staging} as s`).whereRaw('s.source_system = t.source_system and s.source_reference = t.source_reference');
    if (which === 'tombstone') sub.where('s.row_hash', DELETED_VERSION);
    if (which === 'record') sub.whereNot('s.row_hash', DELETED_VERSION);
    return sub;
  };
}

/**
 * The scope values a staged snapshot covers, as a subquery of staging (only with a
 * `snapshotScope`): the values its records hold.
 */
function coveredScopes(q: Queryable, pipeline: PipelineDefinition, scope: string): Knex.QueryBuilder {
  return q.knex(pipeline.tables.staging).distinct(scope).whereNot('row_hash', DELETED_VERSION).whereNotNull(scope);
}

/** The target's live records of the staged snapshot's scopes (`t`). */
function liveInScope(q: Queryable, pipeline: PipelineDefinition): Knex.QueryBuilder {
  const query = q.knex(`${pipeline.tables.target} as t`).where('t.source_system', pipeline.sourceSystem).whereNull('t.deleted_at');
  const scope = pipeline.source.snapshotScope;
  return scope === undefined ? query : query.whereIn(`t.${scope}`, coveredScopes(q, pipeline, scope));
}

/**
 * Counts what the staged run would mark deleted, before anything is written: per scope of a full
 * snapshot (`snapshot` true) its live records and those the read lacks, and the live records
 * tombstones name. Staging holds the whole run by then (after the duplicate-key rule).
 */
export async function countDeletions(q: Queryable, pipeline: PipelineDefinition, snapshot: boolean): Promise<DeletionCounts> {
  const { staging } = pipeline.tables;
  const n = (rows: unknown[]): number => Number((rows[0] as { n: number | string } | undefined)?.n ?? 0);
  const staged = n(await q.knex(staging).whereNot('row_hash', DELETED_VERSION).count({ n: '*' }));
  const tombstoned = n(await liveInAll(q, pipeline).whereExists(stagedKey(q.knex, staging, 'tombstone')).count({ n: '*' }));
  if (!snapshot) return { scopes: [], tombstoned, staged, liveInSource: 0 };
  const liveInSource = n(await liveInAll(q, pipeline).count({ n: '*' }));
  const scope = pipeline.source.snapshotScope;
  // Two counts, not a sum over a subquery: SQL Server refuses an aggregate over a subquery.
  const counted = async (query: Knex.QueryBuilder): Promise<Map<unknown, number>> => {
    const rows = (await (scope === undefined ? query.count({ n: '*' }) : query.select(`t.${scope} as scope`).count({ n: '*' }).groupBy(`t.${scope}`))) as { scope?: unknown; n: number | string }[];
    return new Map(rows.map((row) => [row.scope ?? null, Number(row.n)]));
  };
  const live = await counted(liveInScope(q, pipeline));
  const absent = await counted(liveInScope(q, pipeline).whereNotExists(stagedKey(q.knex, staging, 'any')));
  const scopes = [...live]
    // A whole-source count is one row, zero for a source system with no records yet.
    .filter(([, n]) => scope === undefined || n > 0)
    .map(([value, n]) => ({ scope: value, live: n, absent: absent.get(value) ?? 0 }));
  return { scopes, tombstoned, staged, liveInSource };
}

/** The target's live records of the pipeline's source system (`t`). */
function liveInAll(q: Queryable, pipeline: PipelineDefinition): Knex.QueryBuilder {
  return q.knex(`${pipeline.tables.target} as t`).where('t.source_system', pipeline.sourceSystem).whereNull('t.deleted_at');
}

/** What {@link markDeletions} changed. */
export interface MarkedDeletions {
  /** Records the snapshot lacked, now marked deleted. */
  readonly deleted: number;
  /** Records tombstones named, now marked deleted. */
  readonly tombstoned: number;
  /** Deleted records the run holds again, now live (a change). */
  readonly undeleted: number;
  /** Staged tombstones, removed from staging (named records or not). */
  readonly tombstones: number;
}

/**
 * In the upsert's transaction, before the upsert: marks deleted (`deleted_at` = the run's
 * instant, `deleted_in_run_key`) the live records that staged tombstones name, and, with
 * `snapshot`, the live records of the covered scopes that the read lacks; removes the tombstones
 * from staging (they are never upserted); and makes live again every deleted record the run
 * holds (`last_changed_run_key` and `updated_at` move: it counts as a change). Rows are never
 * removed. Without `marks` (a run key that is not the newest) it only removes the tombstones.
 */
export async function markDeletions(
  q: Queryable,
  pipeline: PipelineDefinition,
  args: { runKey: string; nowIso: string; marks: boolean; snapshot: boolean },
): Promise<MarkedDeletions> {
  const { staging } = pipeline.tables;
  const now = q.adapter.toDriverValue(column.instant(), args.nowIso) as Knex.Value;
  const mark = { deleted_at: now, deleted_in_run_key: args.runKey };
  const tombstoned = args.marks ? await liveInAll(q, pipeline).whereExists(stagedKey(q.knex, staging, 'tombstone')).update(mark) : 0;
  const tombstones = await q.knex(staging).where('row_hash', DELETED_VERSION).delete();
  if (!args.marks) return { deleted: 0, tombstoned, undeleted: 0, tombstones };
  const deleted = args.snapshot ? await liveInScope(q, pipeline).whereNotExists(stagedKey(q.knex, staging, 'any')).update(mark) : 0;
  const undeleted = await q.knex(`${pipeline.tables.target} as t`)
    .where('t.source_system', pipeline.sourceSystem)
    .whereNotNull('t.deleted_at')
    .whereExists(stagedKey(q.knex, staging, 'record'))
    .update({ deleted_at: null, deleted_in_run_key: null, last_changed_run_key: args.runKey, updated_at: now });
  return { deleted, tombstoned, undeleted, tombstones };
}

/**
 * The newest business-date run key later than `runKey` that wrote to the pipeline's target (a
 * record it inserted, changed, or marked deleted), or undefined when there is none: then the run
 * holds the newest export, and may delete. A later date that wrote nothing (held by the delete
 * guard, failed before its upsert) does not count. A file run key (`--file`) has no date to
 * compare: it is always taken for the newest.
 */
export async function newerRunKeyInTarget(q: Queryable, pipeline: PipelineDefinition, runKey: { kind: string; value: string }): Promise<string | undefined> {
  if (runKey.kind !== 'date') return undefined;
  let newest: string | undefined;
  for (const name of ['first_run_key', 'last_changed_run_key', 'deleted_in_run_key']) {
    const row = (await q.knex(pipeline.tables.target)
      .where('source_system', pipeline.sourceSystem)
      .where(name, '>', runKey.value)
      // Business dates only: `file:…` keys sort after every date.
      .where(name, 'like', '____-__-__')
      .max({ key: name })
      .first()) as { key: string | null } | undefined;
    if (row?.key && (newest === undefined || row.key > newest)) newest = row.key;
  }
  return newest;
}
