import type { Database } from '../db/database.ts';
import type { UpsertCounts } from '../dialect/upsert-plan.ts';
import { column } from '../column/column-type.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { enqueueLedgerItems } from '../ledger/enqueue-ledger-items.ts';
import { rebuildDerivedTables, type DerivedCounts } from './rebuild-derived-tables.ts';
import { replaceChildRows, type ChildCounts } from './replace-child-rows.ts';
import { enqueueDeletions } from '../ledger/enqueue-deletions.ts';
import { markDeletions } from './record-deletions-sql.ts';

/** The target columns the post stage reads rows by. */
const TARGET_KEY_COLUMNS = ['source_system', 'source_reference', 'row_hash'];

/** Counts of one upsert. `unchanged` = staged − inserted − updated, plus the records change detection left out. */
export interface UpsertResult extends UpsertCounts {
  readonly unchanged: number;
  /** Post ledger items enqueued, over all destinations (deletions included). */
  readonly enqueued: number;
  /** Per child table (only when the pipeline declares some): parents replaced, rows written. */
  readonly children?: Record<string, ChildCounts>;
  /** Per derived table (only when the pipeline declares some): rows deleted, inserted (identical). */
  readonly derived?: Record<string, DerivedCounts>;
  /**
   * With a pipeline that deletes records (see `deletesRecords`): records marked deleted because
   * the full snapshot lacked them (`deleted`) or a tombstone named them (`tombstoned`), deleted
   * records back in the source (`undeleted`), and deletions enqueued over all destinations.
   */
  readonly deletions?: { readonly deleted: number; readonly tombstoned: number; readonly undeleted: number; readonly enqueued: number };
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
  args: {
    runKey: string;
    staged: number;
    /** Records change detection left out of staging as the target holds them (counted as unchanged). @defaultValue 0 */
    unchanged?: number;
    nowIso: string;
    scopes?: Readonly<Record<string, readonly string[]>>;
    countIdentical?: boolean;
    /**
     * A pipeline that deletes records (see `markDeletions`): `marks` false (a run key that is not
     * the newest) marks nothing; `snapshot` marks absences, besides tombstones.
     */
    deletions?: { marks: boolean; snapshot: boolean };
    beforeCommit?: () => Promise<void>;
  },
): Promise<UpsertResult> {
  const plan = {
    staging: pipeline.tables.staging,
    target: pipeline.tables.target,
    columns: Object.keys(pipeline.columns),
    runKey: args.runKey,
    now: db.adapter.toDriverValue(column.instant(), args.nowIso),
  };
  const counts = await db.knex.transaction(async (trx) => {
    const q = { knex: trx, adapter: db.adapter };
    const marked = args.deletions ? await markDeletions(q, pipeline, { runKey: args.runKey, nowIso: args.nowIso, ...args.deletions }) : undefined;
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
    let deletions: UpsertResult['deletions'];
    if (marked) {
      let deletesEnqueued = 0;
      for (const destination of pipeline.destinations.filter((d) => d.delete !== undefined)) {
        deletesEnqueued += await enqueueDeletions(q, {
          jobName: pipeline.name, destination: destination.name, target: pipeline.tables.target, sourceSystem: pipeline.sourceSystem, runKey: args.runKey, nowIso: args.nowIso,
        });
      }
      enqueued += deletesEnqueued;
      deletions = { deleted: marked.deleted, tombstoned: marked.tombstoned, undeleted: marked.undeleted, enqueued: deletesEnqueued };
    }
    // After the deletions are marked: a derived query sees the target as this run leaves it.
    const children = pipeline.children.length > 0 ? { children: await replaceChildRows(trx, db.adapter, pipeline, plan.now) } : {};
    const derived = pipeline.derived.length > 0 ? { derived: await rebuildDerivedTables(trx, db.adapter, pipeline, { scopes: args.scopes ?? {}, countIdentical: args.countIdentical === true }) } : {};
    await args.beforeCommit?.();
    return { ...result, enqueued, tombstones: marked?.tombstones ?? 0, ...(deletions ? { deletions } : {}), ...children, ...derived };
  });
  const { tombstones, ...rest } = counts;
  return { ...rest, unchanged: (args.unchanged ?? 0) + args.staged - tombstones - counts.inserted - counts.updated };
}
