import pg from 'pg';
import { LockLostError } from '../../errors/lock-lost-error.ts';
import type { AppLock, AppLockAttempt, AppLockRequest } from '../app-lock.ts';

/** PostgreSQL truncates `application_name` to this many bytes. */
const APPLICATION_NAME_MAX = 63;

// The lock key is a bigint derived from the name; pg_locks shows it split into two oids.
const KEY = 'hashtextextended($1, 0)';
const HOLDERS_SQL = `
  select a.pid, a.application_name, a.client_addr, a.backend_start
  from pg_locks l join pg_stat_activity a on a.pid = l.pid
  where l.locktype = 'advisory' and l.granted and l.objsubid = 1
    and l.database = (select oid from pg_database where datname = current_database())
    and l.classid = ((${KEY} >> 32) & 4294967295)::oid and l.objid = (${KEY} & 4294967295)::oid`;

/**
 * Takes `pg_try_advisory_lock` on a dedicated `pg.Client` that lives exactly as long as the run
 * (never a pooled connection: a pool may hand the session to other work, and advisory locks
 * belong to the session). Session end releases the lock, so a killed run leaves none behind.
 * The client's `application_name` carries the owner, so a second run can name the holder.
 */
export async function tryAcquirePostgresAppLock(connectionString: string, request: AppLockRequest): Promise<AppLockAttempt> {
  const client = new pg.Client({
    connectionString,
    application_name: `idem ${request.owner}`.slice(0, APPLICATION_NAME_MAX),
  });
  let lostBecause: Error | undefined;
  // A terminated backend emits 'error' on an idle client; without a listener it would crash the process.
  client.on('error', (error) => {
    lostBecause = error;
  });
  await client.connect();
  const { rows } = await client.query<{ ok: boolean }>(`select pg_try_advisory_lock(${KEY}) as ok`, [request.name]);
  if (!rows[0]!.ok) {
    const holders = await client.query<{ pid: number; application_name: string; client_addr: string | null }>(HOLDERS_SQL, [request.name]);
    await client.end().catch(() => undefined);
    const holder = holders.rows[0];
    return {
      acquired: false,
      holder: holder ? `"${holder.application_name}" (backend pid ${holder.pid}${holder.client_addr ? ` from ${holder.client_addr}` : ''})` : 'another session',
    };
  }
  let released = false;
  const lock: AppLock = {
    name: request.name,
    async assertHeld() {
      if (lostBecause) throw new LockLostError(request.name, `lock connection failed: ${lostBecause.message}`, lostBecause);
      try {
        const held = await client.query(`${HOLDERS_SQL} and l.pid = pg_backend_pid()`, [request.name]);
        if (held.rowCount !== 1) throw new Error('the advisory lock is no longer held by this session');
      } catch (error) {
        throw new LockLostError(request.name, (error as Error).message, error);
      }
    },
    async release() {
      if (released) return;
      released = true;
      // Closing the session releases the lock even if the explicit unlock fails.
      await client.query(`select pg_advisory_unlock(${KEY})`, [request.name]).catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
  return { acquired: true, lock };
}
