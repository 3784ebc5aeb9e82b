import type { Knex } from 'knex';
import pg from 'pg';
import { LockLostError } from '../../errors/lock-lost-error.ts';
import type { AppLock, AppLockAttempt, AppLockRequest } from '../app-lock.ts';

/** PostgreSQL truncates `application_name` to this many bytes. */
const APPLICATION_NAME_MAX = 63;

// The lock key is a bigint derived from the name; pg_locks shows it split into two oids.
const KEY = 'hashtextextended($1, 0)';
/** The `pg_locks` row (alias `l`) of the granted lock on `$1` in this database. */
const GRANTED_LOCK = `l.locktype = 'advisory' and l.granted and l.objsubid = 1
    and l.database = (select oid from pg_database where datname = current_database())
    and l.classid = ((${KEY} >> 32) & 4294967295)::oid and l.objid = (${KEY} & 4294967295)::oid`;
const HOLDERS_SQL = `
  select a.pid, a.application_name, a.client_addr, a.backend_start
  from pg_locks l join pg_stat_activity a on a.pid = l.pid
  where ${GRANTED_LOCK}`;

/**
 * The proof that the lock is still held (`AppLock.assertHeld`): a round trip on the lock's session
 * inside the transaction that took it. The transaction-scoped lock lasts until that transaction
 * ends, and only `release` ends it (an error inside it leaves it aborted, still holding the lock,
 * and fails this statement too); so a session that answers holds the lock, and one the server
 * ended (`pg_terminate_backend`, a restart, a pooler closing the server connection) fails it.
 * The run proves its lock this way before every batch of requests, so it is as cheap as a round
 * trip can be (not a read of `pg_locks`).
 */
const HELD_SQL = 'select 1';

/**
 * Ends the session holding the app lock `name` in this database (see `DialectAdapter.endAppLockHolder`).
 * @returns whether one was ended.
 */
export async function endPostgresAppLockHolder(knex: Knex, name: string): Promise<boolean> {
  const { rows } = (await knex.raw(`select pg_terminate_backend(l.pid) as ok from pg_locks l where ${GRANTED_LOCK.replaceAll('$1', '?')}`, [name, name])) as { rows: { ok: boolean }[] };
  return rows.some((row) => row.ok);
}

/** Lock sessions at most open at once in one process (one per lock held at the same time). */
const LOCK_SESSIONS_MAX = 10;
/** How long a released lock session is kept for the next lock cycle, in ms. */
const LOCK_SESSION_IDLE_MS = 5000;

/**
 * The sessions app locks are taken on: a pool of its own, never knex's, so a session holding a
 * lock does nothing else, and only one lock cycle at a time uses it. A released session is kept
 * {@link LOCK_SESSION_IDLE_MS} for the next cycle: a backfill takes the lock once per date, and a
 * new PostgreSQL session each time (a backend started, then ended) cost more than a small day's
 * whole upsert. Idle sessions never keep the process alive (`allowExitOnIdle`).
 */
export function createPostgresLockSessions(connectionString: string): pg.Pool {
  const sessions = new pg.Pool({ connectionString, max: LOCK_SESSIONS_MAX, idleTimeoutMillis: LOCK_SESSION_IDLE_MS, allowExitOnIdle: true });
  // A pooled session whose backend is terminated while idle is dropped by the pool; the pool
  // re-emits the error here, and without a listener it would crash the process.
  sessions.on('error', () => undefined);
  return sessions;
}

/**
 * Takes `pg_try_advisory_xact_lock` inside a transaction kept open on a session of `sessions`
 * (see {@link createPostgresLockSessions}) for as long as the lock is held; the session does
 * nothing else meanwhile. A transaction, not the session, holds the lock, so that it holds
 * through a connection pooler in transaction mode too (PgBouncer, Supabase's pooler): a pooler
 * gives a client the same server connection for the whole of a transaction, but a session-level
 * lock taken through it stays on a server connection that other clients then get (two runs both
 * held it, and it outlived its process: issue 28). The transaction ends, and the lock with it,
 * when the holder releases it, when its session ends (a killed run leaves none behind), or when
 * the pooler closes the server connection of a client that went away mid-transaction. It is
 * exempt from `idle_in_transaction_session_timeout` (`SET LOCAL`), takes no snapshot between
 * statements (read committed), so it holds back no vacuum, and writes nothing. The session's
 * `application_name` is set to the owner for the transaction, so a second run can name the
 * holder.
 */
export async function tryAcquirePostgresAppLock(sessions: pg.Pool, request: AppLockRequest): Promise<AppLockAttempt> {
  // A kept session can have died since its last cycle (a restart, a terminated backend) before
  // the pool heard of it: then its first query fails, and one fresh session is tried.
  for (let attempt = 1; ; attempt++) {
    const client = await sessions.connect();
    let lostBecause: Error | undefined;
    // A terminated backend emits 'error' on a checked-out client; without a listener it would crash the process.
    const onError = (error: Error): void => {
      lostBecause = error;
    };
    client.on('error', onError);
    const giveBack = (destroy: boolean): void => {
      client.off('error', onError);
      client.release(destroy || lostBecause !== undefined);
    };
    let rows: { ok: boolean }[];
    try {
      await client.query('begin');
      ({ rows } = await client.query<{ ok: boolean }>(
        `select set_config('application_name', $2, true), set_config('idle_in_transaction_session_timeout', '0', true), pg_try_advisory_xact_lock(${KEY}) as ok`,
        [request.name, `idem ${request.owner}`.slice(0, APPLICATION_NAME_MAX)],
      ));
    } catch (error) {
      giveBack(true);
      if (attempt === 1) continue;
      throw error;
    }
    if (rows[0]!.ok) return { acquired: true, lock: heldLock(client, request, () => lostBecause, giveBack) };
    const holder = await holderOf(client, request);
    const ended = await endTransaction(client);
    giveBack(!ended);
    return { acquired: false, holder };
  }
}

/** Ends the lock's transaction, which releases the lock; false when the session could not (then it must be ended). */
function endTransaction(client: pg.PoolClient): Promise<boolean> {
  return client.query('rollback').then(() => true, () => false);
}

/** Who holds the lock, asked on the session that could not take it. */
async function holderOf(client: pg.PoolClient, request: AppLockRequest): Promise<string> {
  const holders = await client.query<{ pid: number; application_name: string; client_addr: string | null }>(HOLDERS_SQL, [request.name]).catch(() => ({ rows: [] }));
  const holder = holders.rows[0];
  return holder ? `"${holder.application_name}" (backend pid ${holder.pid}${holder.client_addr ? ` from ${holder.client_addr}` : ''})` : 'another session';
}

/** The lock held on `client`: proven by {@link HELD_SQL}, released by unlocking and giving the session back. */
function heldLock(client: pg.PoolClient, request: AppLockRequest, lostBecause: () => Error | undefined, giveBack: (destroy: boolean) => void): AppLock {
  let released = false;
  const assertValidNow = (): void => {
    const lost = lostBecause();
    if (lost) throw new LockLostError(request.name, `lock connection failed: ${lost.message}`, lost);
  };
  return {
    name: request.name,
    expiresUnlessRenewed: false,
    assertValidNow,
    async assertValid() {
      assertValidNow();
    },
    async assertHeld() {
      const lost = lostBecause();
      if (lost) throw new LockLostError(request.name, `lock connection failed: ${lost.message}`, lost);
      try {
        const held = await client.query(HELD_SQL);
        if (held.rowCount !== 1) throw new Error('the advisory lock is no longer held by this session');
      } catch (error) {
        throw new LockLostError(request.name, (error as Error).message, error);
      }
    },
    async release() {
      if (released) return;
      released = true;
      // A session whose transaction did not end is ended: ending it releases the lock.
      giveBack(!(await endTransaction(client)));
    },
  };
}
