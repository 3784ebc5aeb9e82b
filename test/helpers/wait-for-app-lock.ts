import type { Database } from '../../src/db/database.ts';
import { appLockName } from '../../src/runs/app-lock-name.ts';

/**
 * Waits, polling in-process every 50 ms, until a pipeline's app lock is free, then releases it
 * again. After a SIGKILL on SQLite the lock frees only when the dead run's lease expires; waiting
 * here is cheaper than starting CLI processes that exit 75.
 * @param maxWaitMs @defaultValue 10000
 * @returns whether the lock was free in time.
 */
export async function waitForAppLock(db: Database, pipelineName: string, maxWaitMs = 10_000): Promise<boolean> {
  const deadline = performance.now() + maxWaitMs;
  for (;;) {
    const attempt = await db.adapter.tryAcquireAppLock(db.knex, { name: appLockName(pipelineName), owner: 'test: waiting for the lock', leaseMs: 1000 });
    if (attempt.acquired) {
      await attempt.lock.release();
      return true;
    }
    if (performance.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
