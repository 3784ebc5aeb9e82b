import type { Database } from '../../src/db/database.ts';
import { appLockName } from '../../src/runs/app-lock-name.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { readInvoices, type InvoiceRow } from './read-target.ts';

/**
 * What runs of the example pipeline left behind, in one object, so a crash-and-rerun test can
 * compare it with a clean run's in one assertion (and see every difference in one diff).
 */
export interface Aftermath {
  /** Target rows without id, created_at and updated_at (see `readInvoices`). */
  readonly rows: InvoiceRow[];
  /** Records at the sandbox destination. */
  readonly remoteRecords: number;
  /** References the destination holds other than exactly once, with their counts. */
  readonly notOnceRemotely: [string, number][];
  readonly stagingRows: number;
  /** Every `job_runs` row: status and attempts. */
  readonly jobRuns: { runKey: string; status: string; attempts: number }[];
  /** A fresh in-process attempt took the pipeline's app lock (and released it). */
  readonly lockFree: boolean;
}

/** Reads the {@link Aftermath} of the example pipeline from `db` and `sandbox`. */
export async function readAftermath(db: Database, sandbox: SandboxApi): Promise<Aftermath> {
  const { byReference, records } = sandbox.state.stats();
  const [{ n }] = (await db.knex(pipeline.tables.staging).count({ n: '*' })) as [{ n: number | string }];
  const jobRuns = (await db.knex('job_runs').select('run_key', 'status', 'attempts').orderBy('run_key')) as { run_key: string; status: string; attempts: number }[];
  const attempt = await db.adapter.tryAcquireAppLock(db.knex, { name: appLockName(pipeline.name), owner: 'test: lock check', leaseMs: 1000 });
  if (attempt.acquired) await attempt.lock.release();
  return {
    rows: await readInvoices(db, { stamps: false }),
    remoteRecords: records,
    notOnceRemotely: Object.entries(byReference).filter(([, count]) => count !== 1),
    stagingRows: Number(n),
    jobRuns: jobRuns.map((r) => ({ runKey: r.run_key, status: r.status, attempts: Number(r.attempts) })),
    lockFree: attempt.acquired,
  };
}
