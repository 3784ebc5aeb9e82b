import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { LockLostError } from '../../errors/lock-lost-error.ts';
import type { AppLock, AppLockAttempt, AppLockRequest } from '../app-lock.ts';

/** The framework table that holds SQLite lease rows (created by the framework migration). */
export const APP_LOCKS_TABLE = 'app_locks';

/**
 * SQLite has no session locks, and its single pooled connection must not be held for a run, so
 * the app lock is a lease row: taken when absent or expired, renewed by the holder every third of
 * the lease, checked before every durable step. A killed holder's lease expires after `leaseMs`.
 */
export async function tryAcquireSqliteAppLock(knex: Knex, request: AppLockRequest): Promise<AppLockAttempt> {
  const token = randomUUID();
  const now = Date.now();
  await knex(APP_LOCKS_TABLE)
    .insert({ name: request.name, owner: request.owner, token, acquired_at: now, expires_at: now + request.leaseMs })
    .onConflict('name')
    .merge(['owner', 'token', 'acquired_at', 'expires_at'])
    .where(`${APP_LOCKS_TABLE}.expires_at`, '<', now);
  const row = await knex(APP_LOCKS_TABLE).where({ name: request.name }).first<{ owner: string; token: string; expires_at: number }>();
  if (row?.token !== token) {
    const inSeconds = row ? Math.max(0, Math.ceil((row.expires_at - Date.now()) / 1000)) : 0;
    return { acquired: false, holder: `"${row?.owner ?? 'unknown'}" (lease expires in ${inSeconds}s unless renewed)` };
  }

  let lost: Error | undefined;
  const renew = async (): Promise<void> => {
    const changed = await knex(APP_LOCKS_TABLE)
      .where({ name: request.name, token })
      .update({ expires_at: Date.now() + request.leaseMs });
    if (changed !== 1) throw new Error('the lease was taken over after it expired');
  };
  const timer = setInterval(() => {
    renew().catch((error: Error) => {
      lost ??= error;
    });
  }, Math.max(100, Math.floor(request.leaseMs / 3)));
  timer.unref();

  let released = false;
  const lock: AppLock = {
    name: request.name,
    async assertHeld() {
      if (lost) throw new LockLostError(request.name, lost.message, lost);
      try {
        await renew();
      } catch (error) {
        throw new LockLostError(request.name, (error as Error).message, error);
      }
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await knex(APP_LOCKS_TABLE).where({ name: request.name, token }).delete().catch(() => undefined);
    },
  };
  return { acquired: true, lock };
}
