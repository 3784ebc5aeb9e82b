import mysql, { type ConnectionOptions, type RowDataPacket } from 'mysql2/promise';
import { LockLostError } from '../../errors/lock-lost-error.ts';
import type { AppLock, AppLockAttempt, AppLockRequest } from '../app-lock.ts';
import { mysqlLockName } from './mysql-lock-name.ts';
import { MYSQL_SESSION_SQL } from './mysql-types.ts';

/** The framework table whose row names a lock's holder (SQLite's lease table, here only a label). */
const APP_LOCKS_TABLE = 'app_locks';
/** How long a second run waits for a brand-new holder to write its owner row before naming it without. */
const OWNER_ROW_WAIT_MS = 300;
/** Keepalive pings stay within these bounds (a third of the server's `wait_timeout`). */
const PING_MIN_MS = 1_000;
const PING_MAX_MS = 60_000;

/** The `app_locks.token` of the holder on one server connection. */
const tokenOf = (connectionId: number | string): string => `mysql-connection:${connectionId}`;

interface HolderRow extends RowDataPacket {
  holder: number | null;
  user: string | null;
  host: string | null;
  command: string | null;
  time: number | null;
}

/**
 * Names the session holding `serverName`: its connection id (`IS_USED_LOCK`), user and host
 * from `information_schema.PROCESSLIST`, and the owner string the holder wrote to `app_locks`
 * under its connection id (MySQL shows no application name, and MariaDB's performance_schema,
 * where connection attributes live, is off by default). The holder writes that row just after
 * `GET_LOCK`, so a run that lost the race by microseconds waits briefly for it.
 */
async function describeHolder(connection: mysql.Connection, name: string, serverName: string): Promise<string> {
  const started = Date.now();
  for (;;) {
    const [[row]] = await connection.query<HolderRow[]>(
      'select l.holder, p.user, p.host, p.command, p.time from (select is_used_lock(?) as holder) l ' +
        'left join information_schema.processlist p on p.id = l.holder',
      [serverName],
    );
    if (row?.holder === null || row?.holder === undefined) return 'another session (it released the lock just now; retry)';
    const session = `connection ${row.holder}${row.user ? `, ${row.user}@${row.host}` : ''}`;
    const [owners] = await connection
      .query<RowDataPacket[]>(`select owner from ${APP_LOCKS_TABLE} where name = ? and token = ?`, [name, tokenOf(row.holder)])
      .catch(() => [[] as RowDataPacket[]] as const);
    if (owners[0]) return `"${owners[0].owner as string}" (${session})`;
    if (Date.now() - started >= OWNER_ROW_WAIT_MS) return `${session} (${row.command ?? 'unknown'} for ${row.time ?? '?'}s; no owner recorded)`;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Takes `GET_LOCK(name, 0)` on a dedicated mysql2 connection that lives exactly as long as the
 * run (never a pooled connection: user locks belong to the session, and a pool hands sessions to
 * other work). Session end releases the lock, so a killed run, or a `KILL` of its connection,
 * leaves none behind. The name includes the database and is hashed past 64 bytes
 * ({@link mysqlLockName}). A keepalive ping (unref'd, a third of `wait_timeout`) stops an idle
 * lock connection from being closed by the server during a long stage.
 */
export async function tryAcquireMysqlAppLock(options: ConnectionOptions, request: AppLockRequest): Promise<AppLockAttempt> {
  const connection = await mysql.createConnection(options);
  let lostBecause: Error | undefined;
  // A killed session emits 'error' on an idle connection; without a listener it would crash the process.
  connection.on('error', (error: Error) => {
    lostBecause ??= error;
  });
  let serverName: string;
  let connectionId: number;
  let waitTimeoutS: number;
  try {
    await connection.query(MYSQL_SESSION_SQL);
    const [[session]] = await connection.query<RowDataPacket[]>('select connection_id() as id, database() as db, @@wait_timeout as wait_timeout');
    connectionId = Number(session!.id);
    waitTimeoutS = Number(session!.wait_timeout);
    serverName = mysqlLockName((session!.db as string | null) ?? '', request.name);
    const [[got]] = await connection.query<RowDataPacket[]>('select get_lock(?, 0) as ok', [serverName]);
    if (got!.ok === null) throw new Error(`GET_LOCK(${serverName}) failed`);
    if (Number(got!.ok) !== 1) {
      const holder = await describeHolder(connection, request.name, serverName);
      await connection.end().catch(() => connection.destroy());
      return { acquired: false, holder };
    }
  } catch (error) {
    connection.destroy();
    throw error;
  }

  // Names the holder for a second run; a label only (the session holds the lock, expires_at 0 = no lease).
  const token = tokenOf(connectionId);
  const now = Date.now();
  await connection
    .query(
      `insert into ${APP_LOCKS_TABLE} (name, owner, token, acquired_at, expires_at) values (?, ?, ?, ?, 0) ` +
        'on duplicate key update owner = ?, token = ?, acquired_at = ?, expires_at = 0',
      [request.name, request.owner, token, now, request.owner, token, now],
    )
    .catch(() => undefined);

  const pingMs = Math.min(PING_MAX_MS, Math.max(PING_MIN_MS, Math.floor((waitTimeoutS * 1000) / 3)));
  const keepalive = setInterval(() => {
    connection.ping().catch((error: Error) => {
      lostBecause ??= error;
    });
  }, pingMs);
  keepalive.unref();

  let released = false;
  const lock: AppLock = {
    name: request.name,
    expiresUnlessRenewed: false,
    assertValidNow() {
      if (lostBecause) throw new LockLostError(request.name, `lock connection failed: ${lostBecause.message}`, lostBecause);
    },
    async assertValid() {
      lock.assertValidNow();
    },
    async assertHeld() {
      if (lostBecause) throw new LockLostError(request.name, `lock connection failed: ${lostBecause.message}`, lostBecause);
      try {
        const [[row]] = await connection.query<RowDataPacket[]>('select is_used_lock(?) = connection_id() as held', [serverName]);
        if (Number(row?.held) !== 1) throw new Error('the user lock is no longer held by this session');
      } catch (error) {
        throw new LockLostError(request.name, (error as Error).message, error);
      }
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(keepalive);
      if (lostBecause) {
        connection.destroy();
        return;
      }
      await connection.query(`delete from ${APP_LOCKS_TABLE} where name = ? and token = ?`, [request.name, token]).catch(() => undefined);
      // Closing the session releases the lock even if the explicit release fails.
      await connection.query('select release_lock(?)', [serverName]).catch(() => undefined);
      await connection.end().catch(() => connection.destroy());
    },
  };
  return { acquired: true, lock };
}
