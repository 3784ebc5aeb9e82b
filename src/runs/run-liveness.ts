import type { Database } from '../db/database.ts';
import { appLockName } from './app-lock-name.ts';
import type { JobRun } from './job-run.ts';

/**
 * What `idem status` can tell about a run: `finished` (any status but `started`), `running` (its
 * holder still holds the app lock and beats), or `dead` with the reason: its heartbeat stopped for
 * longer than `staleMs` (the lease), or, on a server database, the pipeline's app lock is free, so
 * no process holds it for this run (the server frees a session lock when its session ends).
 */
export type RunLiveness =
  | { readonly state: 'finished' }
  /** `holder`: who holds the app lock, as the server names it (server databases; undefined on SQLite). */
  | { readonly state: 'running'; readonly holder?: string }
  | { readonly state: 'dead'; readonly why: string };

/**
 * The {@link RunLiveness} of a run. On a server database a `started` run with a fresh heartbeat
 * is checked by one non-blocking attempt at its app lock, released at once: a run starting at that
 * very moment may find it held and exit 75 (retry later). SQLite's lock is a lease row that a
 * dead holder leaves behind until it lapses, so there only the heartbeat tells.
 * @param nowMs the current time, epoch ms. @param staleMs how long without a heartbeat is dead, ms.
 * @throws database errors.
 */
export async function runLiveness(db: Database, run: JobRun, nowMs: number, staleMs: number): Promise<RunLiveness> {
  if (run.status !== 'started') return { state: 'finished' };
  const silentMs = nowMs - Date.parse(run.heartbeatAt ?? run.startedAt);
  if (silentMs > staleMs) return { state: 'dead', why: `no heartbeat for ${Math.round(silentMs / 1000)} s` };
  if (!db.adapter.appLockEndsWithSession) return { state: 'running' };
  const attempt = await db.adapter.tryAcquireAppLock(db.knex, { name: appLockName(run.jobName), owner: 'idem status (checking whether a run is alive)', leaseMs: 1000 });
  if (!attempt.acquired) return { state: 'running', holder: attempt.holder };
  await attempt.lock.release();
  return { state: 'dead', why: 'its app lock is free: no process holds it' };
}
