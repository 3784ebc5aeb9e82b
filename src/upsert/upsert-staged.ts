import type { Database } from '../db/database.ts';
import type { UpsertCounts } from '../dialect/upsert-plan.ts';
import { column } from '../pipeline/column-type.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';

/** Counts of one upsert. `unchanged` = staged − inserted − updated. */
export interface UpsertResult extends UpsertCounts {
  readonly unchanged: number;
}

/**
 * Merges the staged run into the target in one transaction with set-based SQL (the dialect's
 * UPDATE-where-changed, then INSERT-where-missing). Unchanged rows are not touched, so their
 * `updated_at` does not move.
 */
export async function upsertStaged(
  db: Database,
  pipeline: PipelineDefinition,
  args: { runKey: string; staged: number; nowIso: string; beforeCommit?: () => Promise<void> },
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
    await args.beforeCommit?.();
    return result;
  });
  return { ...counts, unchanged: args.staged - counts.inserted - counts.updated };
}
