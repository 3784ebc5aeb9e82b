/**
 * A held app lock. Exactly one run per pipeline holds it, on one dedicated connection (or, on
 * SQLite, as a lease row that the run renews). See docs/architecture.md, "Runs, run keys and locks".
 */
export interface AppLock {
  readonly name: string;
  /**
   * Proves the lock is still held; called before every durable step.
   * @throws LockLostError when the lock connection died or the lease was taken over.
   */
  assertHeld(): Promise<void>;
  /** Releases the lock and closes what holds it. Never throws; safe to call twice. */
  release(): Promise<void>;
}

/** Who asks for a lock: written where the database can show it to a second run. */
export interface AppLockRequest {
  /** The lock's name, for example `idem:online-retail-invoices`. */
  readonly name: string;
  /** A short description of the holder, for example `run 2010-12-01 on host-a pid 4242`. */
  readonly owner: string;
  /** SQLite lease length in ms; server dialects ignore it (the session holds the lock). */
  readonly leaseMs: number;
}

/** The result of one non-blocking attempt to take an app lock. */
export type AppLockAttempt =
  | { readonly acquired: true; readonly lock: AppLock }
  | { readonly acquired: false; readonly holder: string };
