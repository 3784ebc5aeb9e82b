import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { LockLostError } from '../../errors/lock-lost-error.ts';
import type { AppLock, AppLockAttempt, AppLockRequest } from '../app-lock.ts';

/** The framework table that holds SQLite lease rows (created by the framework migration). */
export const APP_LOCKS_TABLE = 'app_locks';

/** Who holds the lock when SQLite's own write lock keeps this process from even asking. */
const WRITE_LOCK_HOLDER =
  "another process, which has held the SQLite database's write lock past the busy timeout (SQLITE_BUSY): a run stopped or stuck inside a transaction";

/** SQLITE_BUSY (and its extended codes): another connection holds the write lock past the busy timeout. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * SQLite has no session locks, and its single pooled connection must not be held for a run, so
 * the app lock is a lease row: taken when absent or expired, renewed by the holder every third of
 * the lease, checked before every durable step. A killed holder's lease expires after `leaseMs`.
 *
 * The holder counts its lease as valid until `leaseMs` after it sent its last successful renewal
 * (or the acquiring statement), by its monotonic clock: never later than the `expires_at` it
 * wrote, after which another process may take the lease. Past that, `assertValid` renews before it
 * lets the holder send. So once another process holds the lock, the earlier holder, however long
 * it was stopped, sends nothing more.
 *
 * A process that cannot even ask, because another holds SQLite's write lock past the busy timeout
 * (a run stopped inside a transaction), gets the lock as held: retry later, not a failure.
 */
export async function tryAcquireSqliteAppLock(knex: Knex, request: AppLockRequest): Promise<AppLockAttempt> {
  const token = randomUUID();
  const asked = performance.now();
  const now = Date.now();
  try {
    await knex(APP_LOCKS_TABLE)
      .insert({ name: request.name, owner: request.owner, token, acquired_at: now, expires_at: now + request.leaseMs })
      .onConflict('name')
      .merge(['owner', 'token', 'acquired_at', 'expires_at'])
      .where(`${APP_LOCKS_TABLE}.expires_at`, '<', now);
  } catch (error) {
    if (isBusy(error)) return { acquired: false, holder: WRITE_LOCK_HOLDER };
    throw error;
  }
  const row = await knex(APP_LOCKS_TABLE).where({ name: request.name }).first<{ owner: string; token: string; expires_at: number }>();
  if (row?.token !== token) {
    const inSeconds = row ? Math.max(0, Math.ceil((row.expires_at - Date.now()) / 1000)) : 0;
    return { acquired: false, holder: `"${row?.owner ?? 'unknown'}" (lease expires in ${inSeconds}s unless renewed)` };
  }

  let lost: Error | undefined;
  let validUntil = asked + request.leaseMs;
  const renew = async (): Promise<void> => {
    const sent = performance.now();
    const changed = await knex(APP_LOCKS_TABLE)
      .where({ name: request.name, token })
      .update({ expires_at: Date.now() + request.leaseMs });
    if (changed !== 1) throw new Error('the lease was taken over after it expired');
    validUntil = Math.max(validUntil, sent + request.leaseMs);
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
    expiresUnlessRenewed: true,
    async assertHeld() {
      if (lost) throw new LockLostError(request.name, lost.message, lost);
      try {
        await renew();
      } catch (error) {
        throw new LockLostError(request.name, (error as Error).message, error);
      }
    },
    assertValidNow() {
      if (lost) throw new LockLostError(request.name, lost.message, lost);
      if (performance.now() >= validUntil) throw new LockLostError(request.name, 'the lease ran out by this process\'s clock before a request was written');
    },
    async assertValid() {
      if (lost) throw new LockLostError(request.name, lost.message, lost);
      if (performance.now() < validUntil) return;
      // Ran out by this process's clock: only the database can tell whether another took it.
      await lock.assertHeld();
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
