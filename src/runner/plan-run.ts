import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import type { AppLock } from '../dialect/app-lock.ts';
import { column } from '../column/column-type.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { postableItemsQuery } from '../ledger/ledger-reports.ts';
import type { RunContext } from './run-context.ts';
import type { RunRequest } from './run-request.ts';
import type { PlanPart, RunPlan } from './run-plan.ts';
import type { DerivedCounts } from '../upsert/rebuild-derived-tables.ts';
import { runStages, type RunCounts } from './run-stages.ts';

/** How many keys of each kind a plan names. */
const KEYS_SHOWN = 5;

class Rollback extends Error {}

async function part(query: () => Promise<{ source_reference: string }[]>, count: number): Promise<PlanPart> {
  return { count, first: (await query()).map((r) => r.source_reference) };
}

async function describePlan(db: Database, pipeline: PipelineDefinition, runKey: string, nowIso: string, counts: RunCounts, strategies: Record<string, string>): Promise<RunPlan> {
  const now = db.adapter.toDriverValue(column.instant(), nowIso);
  const target = () => db.knex(pipeline.tables.target).select('source_reference').orderBy('source_reference').limit(KEYS_SHOWN);
  const upsert = counts.upsert as { inserted: number; updated: number; unchanged: number; deletions?: unknown };
  // The real upsert ran inside this transaction and stamped what it wrote with the run's instant.
  let plan: RunPlan = {
    target: {
      table: pipeline.tables.target,
      insert: await part(() => target().where({ created_at: now }), upsert.inserted),
      update: await part(() => target().where({ updated_at: now }).whereNot({ created_at: now }), upsert.updated),
      leave: await part(
        () => target().whereNot({ updated_at: now }).whereIn('source_reference', db.knex(pipeline.tables.staging).select('source_reference')),
        upsert.unchanged,
      ),
    },
    destinations: [],
    derived: Object.entries((counts.upsert as { derived?: Record<string, DerivedCounts> }).derived ?? {}).map(([table, rebuilt]) => (
      { table, scopes: rebuilt.scopes, delete: rebuilt.deleted, insert: rebuilt.inserted, identical: rebuilt.identical ?? 0 })),
  };
  const deletions = upsert.deletions as { deleted: number; tombstoned: number } | undefined;
  if (deletions) {
    const held = (counts.deletions as { held?: string } | undefined)?.held;
    const marked = () => target().where({ deleted_in_run_key: runKey, deleted_at: now });
    plan = { ...plan, target: { ...plan.target, delete: await part(marked, deletions.deleted + deletions.tombstoned), ...(held ? { held } : {}) } };
  }
  const destinations = [];
  for (const destination of pipeline.destinations) {
    const pending = () => postableItemsQuery(db, { jobName: pipeline.name, runKey, destination: destination.name });
    const total = Number(((await pending().count({ n: '*' })) as { n: number | string }[])[0]!.n);
    destinations.push({
      destination: destination.name,
      strategy: strategies[destination.name] ?? destination.strategy,
      requests: await part(() => pending().select('source_reference').orderBy('source_reference').limit(KEYS_SHOWN), total),
    });
  }
  return { ...plan, destinations };
}

/**
 * `--dry-run`: the real extract, stage, duplicate-key rule, upsert and ledger enqueue, inside one
 * transaction that is rolled back. What the plan reports is what those statements did; nothing
 * stays: no `job_runs`, no ledger, no rows, no quarantine, and no request is sent.
 */
export async function planRun(
  ctx: RunContext,
  request: RunRequest,
  run: { lock: AppLock; log: Logger; counts: RunCounts; sourceLocation: string; nowIso: string; strategies: Record<string, string> },
): Promise<RunPlan> {
  let plan: RunPlan | undefined;
  // The transaction owns every row it touches until the rollback; the app lock is held around
  // it. Its checks are skipped inside: on SQLite they would wait for the connection this holds.
  const lock: AppLock = { ...run.lock, assertHeld: async () => undefined, release: async () => undefined };
  try {
    await ctx.db.knex.transaction(async (trx) => {
      const db = { ...ctx.db, knex: trx };
      await runStages({ ...ctx, db, failpoints: undefined }, request, { ...run, lock, now: () => run.nowIso, keepStaging: true, dryRun: true });
      plan = await describePlan(db, request.pipeline, request.runKey.value, run.nowIso, run.counts, run.strategies);
      throw new Rollback('dry run');
    });
  } catch (error) {
    if (!(error instanceof Rollback)) throw error;
  }
  return plan!;
}
