import type { Database } from '../db/database.ts';
import type { UpsertCounts } from '../dialect/upsert-plan.ts';
import { column } from '../column/column-type.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { enqueueLedgerItems } from '../ledger/enqueue-ledger-items.ts';
import { rebuildDerivedTables, type DerivedCounts } from './rebuild-derived-tables.ts';
import { replaceChildRows, type ChildCounts } from './replace-child-rows.ts';

/** The target columns the post stage reads rows by. */
const TARGET_KEY_COLUMNS = ['source_system', 'source_reference', 'row_hash'];

/** Counts of one upsert. `unchanged` = staged − inserted − updated. */
export interface UpsertResult extends UpsertCounts {
  readonly unchanged: number;
  /** Post ledger items enqueued, over all destinations. */
  readonly enqueued: number;
  /** Per child table (only when the pipeline declares some): parents replaced, rows written. */
  readonly children?: Record<string, ChildCounts>;
  /** Per derived table (only when the pipeline declares some): rows deleted, inserted (identical). */
  readonly derived?: Record<string, DerivedCounts>;
}

/**
 * Merges the staged run into the target in one transaction with set-based SQL (the dialect's
 * UPDATE-where-changed, then INSERT-where-missing). Unchanged rows are not touched, so their
 * `updated_at` does not move. In the same transaction every new content version is enqueued in
 * the post ledger for each destination, so no crash can separate a change from its post. Then,
 * still in it, the child rows of every changed parent are replaced (`replaceChildRows`) and the
 * derived tables rebuilt for `scopes` (by table) (`rebuildDerivedTables`; `countIdentical` for a dry run).
 */
export async function upsertStaged(
  db: Database,
  pipeline: PipelineDefinition,
  args: { runKey: string; staged: number; nowIso: string; scopes?: Readonly<Record<string, readonly string[]>>; countIdentical?: boolean; beforeCommit?: () => Promise<void> },
): Promise<UpsertResult> {
  const plan = {
    staging: pipeline.tables.staging,
    target: pipeline.tables.target,
    columns: Object.keys(pipeline.columns),
    runKey: args.runKey,
    now: db.adapter.toDriverValue(column.instant(), args.nowIso),
  };
  const counts = await db.knex.transaction(async (trx) => {
    const result = await db.adapter.upsert(trx, plan);
    // The post stage reads the rows it sends by key right after this commits: after a large
    // write (a first import) statistics taken before it would plan those reads as scans of every
    // row of the source system, each batch of each run.
    await db.adapter.refreshStatistics(trx, plan.target, TARGET_KEY_COLUMNS, result.inserted + result.updated);
    let enqueued = 0;
    for (const destination of pipeline.destinations) {
      enqueued += await enqueueLedgerItems(
        { knex: trx, adapter: db.adapter },
        { jobName: pipeline.name, destination: destination.name, staging: pipeline.tables.staging, runKey: args.runKey, nowIso: args.nowIso },
      );
    }
    const children = pipeline.children.length > 0 ? { children: await replaceChildRows(trx, db.adapter, pipeline, plan.now) } : {};
    const derived = pipeline.derived.length > 0 ? { derived: await rebuildDerivedTables(trx, db.adapter, pipeline, { scopes: args.scopes ?? {}, countIdentical: args.countIdentical === true }) } : {};
    await args.beforeCommit?.();
    return { ...result, enqueued, ...children, ...derived };
  });
  return { ...counts, unchanged: args.staged - counts.inserted - counts.updated };
}
