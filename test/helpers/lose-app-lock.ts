import knexFactory, { type Knex } from 'knex';
import type { Database } from '../../src/db/database.ts';
import { mysqlLockName } from '../../src/dialect/mysql/mysql-lock-name.ts';
import { appLockName } from '../../src/runs/app-lock-name.ts';
import type { TestDialect } from './dialects.ts';

/**
 * Ends the app lock of `pipelineName` that the run in process `pid` holds, the way a database can
 * lose it: the server ends the lock's session (an administrator's kill, a failover, a network
 * cut), or on SQLite the lease row disappears. Each dialect finds the lock's session by what its adapter labels it with.
 * @returns how many sessions (or lease rows) were ended: 1 when the lock was found.
 */
export async function loseAppLock(dialect: TestDialect, db: Database, url: string, pipelineName: string, pid: number): Promise<number> {
  const lock = appLockName(pipelineName);
  if (dialect === 'sqlite') return db.knex('app_locks').where({ name: lock }).delete();
  const admin = async <T>(client: string, connection: Knex.Config['connection'], work: (k: Knex) => Promise<T>): Promise<T> => {
    const k = knexFactory({ client, connection, pool: { min: 0, max: 1 } });
    try {
      return await work(k);
    } finally {
      await k.destroy();
    }
  };
  switch (dialect) {
    case 'postgres':
      // The lock's own pg.Client has application_name "idem pid <pid> on <host>, run <key>".
      return admin('pg', url, async (k) => {
        const { rows } = await k.raw("select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and application_name like ?", [`idem pid ${pid} on %`]);
        return (rows as { ok: boolean }[]).filter((r) => r.ok).length;
      });
    case 'mysql':
      // GET_LOCK names carry the database; IS_USED_LOCK gives the holding connection's id.
      return admin('mysql2', url, async (k) => {
        const [[row]] = (await k.raw('select is_used_lock(?) as holder', [mysqlLockName(new URL(url).pathname.slice(1), lock)])) as [{ holder: number | null }[]];
        if (row?.holder === null || row?.holder === undefined) return 0;
        await k.raw(`kill ${Number(row.holder)}`);
        return 1;
      });
    case 'mssql': {
      // The lock's own session has program_name "idem pid <pid> on <host>, run <key>".
      const [row] = (await db.knex.raw('select session_id from sys.dm_exec_sessions where program_name like ?', [`idem pid ${pid} on %`])) as { session_id: number }[];
      if (!row) return 0;
      await db.knex.raw(`kill ${Number(row.session_id)}`);
      return 1;
    }
  }
}
