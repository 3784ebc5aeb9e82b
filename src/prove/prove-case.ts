import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { ScratchDatabase } from '../db/create-scratch-database.ts';
import type { Database } from '../db/database.ts';
import { openDatabase } from '../db/open-database.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { appLockName } from '../runs/app-lock-name.ts';
import type { JobRun } from '../runs/job-run.ts';
import { findJobRun } from '../runs/job-runs-queries.ts';
import type { RunKey } from '../runs/run-key.ts';
import { loadStandInHandlers } from '../project/load-stand-in-handlers.ts';
import { serveHandlers } from '../testing/serve-handlers.ts';
import { startDestinationStandIns, type DestinationStandIns } from './destination-stand-ins.ts';
import { readTargetSnapshot, type TargetSnapshot } from './read-target-snapshot.ts';
import type { ScratchDatabases } from './scratch-databases.ts';
import { sourceKindOf } from '../source/source-kinds.ts';

/**
 * SQLite lease of the child runs, in ms: short, so a rerun after a SIGKILL waits at most this long
 * for the dead run's lock (server dialects free it when the session ends).
 */
const CHILD_LOCK_LEASE_MS = 1000;

/** Settings a child run must not inherit from the prover's environment: prove sets its own, or none. */
const NOT_INHERITED = ['DATABASE_URL', 'IDEM_DESTINATIONS', 'IDEM_FAILPOINTS', 'IDEM_HEARTBEATS', 'IDEM_LOCK_LEASE_MS', 'LOG_LEVEL', 'IDEM_PROJECT_DIR'];

/** What one proof needs to know about the pipeline and where it runs. */
export interface ProveTarget {
  readonly config: ResolvedConfig;
  readonly pipeline: PipelineDefinition;
  readonly runKey: RunKey;
  /** The prover's environment; children inherit it except {@link NOT_INHERITED}. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where each case's fresh database comes from. */
  readonly databases: ScratchDatabases;
}

/** The state a case left, read in-process after its child runs ended. */
export interface CaseState {
  readonly snapshot: TargetSnapshot;
  readonly stagingRows: number;
  readonly jobRun: JobRun | undefined;
  /** A fresh process could take the pipeline's app lock (it was taken and released again). */
  readonly lockFree: boolean;
}

/**
 * One isolated world for one check: a fresh migrated scratch database, fresh destination
 * stand-ins, and the environment and arguments of `idem run` against them.
 */
export interface ProveCase {
  readonly pipeline: PipelineDefinition;
  readonly standIns: DestinationStandIns;
  /** `run PIPELINE --date D` (or `--file PATH`) and `--triggered-by`. */
  readonly runArgs: readonly string[];
  /** The run key as `job_runs` and the ledger hold it. */
  readonly runKey: string;
  /** A child's environment, with extra settings (e.g. `IDEM_FAILPOINTS`). */
  env(extra?: Readonly<Record<string, string>>): Record<string, string>;
  inspect(): Promise<CaseState>;
  /**
   * Waits until the pipeline's app lock is free (a killed run's SQLite lease expires after
   * {@link CHILD_LOCK_LEASE_MS}; a server frees it when the dead session is noticed), polling
   * in-process, so a rerun does not start processes only to see exit 75.
   * @param maxWaitMs @defaultValue 10000
   * @returns whether it was free in time.
   */
  waitForLockFree(maxWaitMs?: number): Promise<boolean>;
  /** The run key's `job_runs` row as it is now. */
  jobRun(): Promise<JobRun | undefined>;
  /** Opens the scratch database in-process for `work`, and closes it. */
  withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T>;
}

/** Runs `work` in a fresh {@link ProveCase}, then drops its database and stops its stand-ins. */
export async function withProveCase<T>(target: ProveTarget, work: (c: ProveCase) => Promise<T>): Promise<T> {
  const { config, pipeline, runKey } = target;
  let scratch: ScratchDatabase | undefined;
  let standIns: DestinationStandIns | undefined;
  let closeSource: (() => Promise<void>) | undefined;
  try {
    scratch = await target.databases.create();
    const databaseUrl = scratch.url;
    const inherited = Object.fromEntries(
      Object.entries(target.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !NOT_INHERITED.includes(entry[0])),
    );
    const withDatabase = async <R>(use: (db: Database) => Promise<R>): Promise<R> => {
      const db = await openDatabase({ databaseUrl, projectDir: config.projectDir });
      try {
        return await use(db);
      } finally {
        await db.close();
      }
    };
    standIns = await startDestinationStandIns(pipeline, config, withDatabase);
    const standInsEnv = standIns.env;
    // A source its kind lets handlers serve (an HTTP source), described in stand-ins/<pipeline>.ts,
    // is served per case too, fresh, and replaces the IDEM_SOURCES URL; without it the source is
    // read where IDEM_SOURCES points.
    const describedSource = sourceKindOf(pipeline.source).servedByHandlers ? (await loadStandInHandlers(config.projectDir, pipeline.name))?.source : undefined;
    if (describedSource) {
      const server = await serveHandlers(describedSource);
      closeSource = () => server.close();
      inherited.IDEM_SOURCES = JSON.stringify({ ...config.sources, [pipeline.name]: { ...config.sources[pipeline.name], url: server.url } });
    }
    const lockFree = async (db: Database): Promise<boolean> => {
      const attempt = await db.adapter.tryAcquireAppLock(db.knex, { name: appLockName(pipeline.name), owner: 'idem prove (lock check)', leaseMs: CHILD_LOCK_LEASE_MS });
      if (attempt.acquired) await attempt.lock.release();
      return attempt.acquired;
    };
    const proveCase: ProveCase = {
      pipeline,
      standIns,
      runArgs: ['run', pipeline.name, ...(runKey.kind === 'date' ? ['--date', runKey.businessDate] : ['--file', runKey.file]), '--triggered-by', 'idem prove'],
      runKey: runKey.value,
      env: (extra = {}) => ({
        ...inherited,
        DATABASE_URL: databaseUrl,
        IDEM_PROJECT_DIR: config.projectDir,
        IDEM_DESTINATIONS: standInsEnv,
        IDEM_LOCK_LEASE_MS: String(CHILD_LOCK_LEASE_MS),
        LOG_LEVEL: 'info',
        ...extra,
      }),
      withDatabase,
      inspect: () =>
        withDatabase(async (db) => {
          const snapshot = await readTargetSnapshot(db, pipeline);
          const [{ n }] = (await db.knex(pipeline.tables.staging).count({ n: '*' })) as [{ n: number | string }];
          const jobRun = await findJobRun(db, pipeline.name, runKey.value);
          return { snapshot, stagingRows: Number(n), jobRun, lockFree: await lockFree(db) };
        }),
      waitForLockFree: (maxWaitMs = 10_000) =>
        withDatabase(async (db) => {
          const deadline = performance.now() + maxWaitMs;
          for (;;) {
            if (await lockFree(db)) return true;
            if (performance.now() >= deadline) return false;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }),
      jobRun: () => withDatabase((db) => findJobRun(db, pipeline.name, runKey.value)),
    };
    return await work(proveCase);
  } finally {
    await standIns?.close();
    await closeSource?.();
    await scratch?.drop();
  }
}
