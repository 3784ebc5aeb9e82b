/**
 * A held app lock. Exactly one run per pipeline holds it, on one dedicated connection (or, on
 * SQLite, as a lease row that the run renews). See docs/architecture.md, "Runs, run keys and locks".
 */
export interface AppLock {
  readonly name: string;
  /**
   * Proves the lock is still held, with a round trip to the database; called before every durable
   * step and every claim of post ledger items.
   * @throws LockLostError when the lock connection died or the lease was taken over.
   */
  assertHeld(): Promise<void>;
  /**
   * Proves the lock is still this process's, immediately before every request the run sends to a
   * destination (docs/scaling.md, "A process's right to send"), without a round trip while it can:
   * a lock session that has not failed (server dialects); a lease that has not run out since it
   * was last renewed, by this process's monotonic clock (SQLite). A lease that ran out by that
   * clock (the process was stopped, or too busy to renew it) is renewed first, which fails when
   * another process has taken it.
   * @throws LockLostError when it is not this process's.
   */
  assertValid(): Promise<void>;
  /**
   * The part of {@link assertValid} that needs no round trip at all, for the last moment before a
   * request's bytes are written to the socket (`http/check-before-write.ts`): a lock session that
   * has not failed (server dialects); a lease that has not run out by this process's monotonic
   * clock (SQLite). A lease that ran out cannot be renewed there, so it counts as lost: the
   * process was stopped, or stalled past two thirds of the lease, between its last proof and the
   * write.
   * @throws LockLostError
   */
  assertValidNow(): void;
  /**
   * Whether the lock is a lease that lapses unless renewed (SQLite): a holder that stops
   * renewing, paused or cut off, loses it by time alone and, by {@link assertValid}, stops sending
   * by the same time, so once another process has taken the lock the earlier holder sends nothing
   * more. False for a session lock (server dialects): the server frees it when the session ends,
   * which a paused or cut-off holder may not know yet.
   */
  readonly expiresUnlessRenewed: boolean;
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
