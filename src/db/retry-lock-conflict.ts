import pRetry, { AbortError } from 'p-retry';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';

/** Tries of one piece of work that keeps meeting lock conflicts, the first included. */
const LOCK_CONFLICT_TRIES = 6;

/**
 * Runs `work` and, when the database fails it with a lock conflict (a deadlock victim, a lock
 * wait timeout, a busy SQLite; see `DialectAdapter.isLockConflict`), runs it again after a short
 * jittered wait (20–500 ms, exponential), up to 6 tries in all. Any other error is thrown at once.
 * `work` must be safe to run again from the start: one statement, or a whole transaction (never a
 * statement inside a caller's transaction, which the conflict has already rolled back).
 * @throws the last error when every try met a conflict, or the first other error.
 */
export function retryLockConflict<T>(adapter: DialectAdapter, work: () => Promise<T>): Promise<T> {
  return pRetry(
    async () => {
      try {
        return await work();
      } catch (error) {
        if (adapter.isLockConflict(error)) throw error;
        throw new AbortError(error instanceof Error ? error : new Error(String(error)));
      }
    },
    { retries: LOCK_CONFLICT_TRIES - 1, minTimeout: 20, maxTimeout: 500, randomize: true },
  );
}
