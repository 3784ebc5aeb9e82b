import { createHash } from 'node:crypto';
import { TYPES } from 'tedious';
import { IdemError } from '../../errors/idem-error.ts';
import { LockLostError } from '../../errors/lock-lost-error.ts';
import type { AppLock, AppLockAttempt, AppLockRequest } from '../app-lock.ts';
import { type MssqlConnectionSettings, mssqlTediousConfig } from './mssql-connection-config.ts';
import { MssqlSession, type MssqlSessionParameter } from './mssql-session.ts';

/** `sp_getapplock @Resource` is nvarchar(255); the server silently truncates longer names. */
export const MSSQL_APPLOCK_RESOURCE_MAX = 255;

/**
 * The `@Resource` for an app lock name. Names are compared binary (case-sensitive) and cut at
 * 255 characters by the server, so a longer name becomes its first 190 characters, `#` and the
 * SHA-256 of the whole name (255 in all): two long names that share a prefix never collide.
 */
export function mssqlAppLockResource(name: string): string {
  if (name.length <= MSSQL_APPLOCK_RESOURCE_MAX) return name;
  return `${name.slice(0, MSSQL_APPLOCK_RESOURCE_MAX - 65)}#${createHash('sha256').update(name).digest('hex')}`;
}

/**
 * One attempt at the lock on the current session: exclusive, owned by the session (so it
 * survives transactions and ends with the session), no waiting.
 */
export const GET_APPLOCK_SQL =
  "declare @result int; exec @result = sp_getapplock @Resource = @resource, @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = 0; select @result as result;";

/** Releases the session's lock (0 released, -999 not held). */
export const RELEASE_APPLOCK_SQL =
  "declare @result int; exec @result = sp_releaseapplock @Resource = @resource, @LockOwner = 'Session'; select @result as result;";

/** The mode this session holds the lock in: `Exclusive` while held, `NoLock` once lost. */
export const APPLOCK_MODE_SQL = "select applock_mode('public', @resource, 'Session') as mode;";

/**
 * Who holds the lock, best effort: the other session with a granted exclusive session-owned
 * APPLICATION lock whose description shows the name (SQL Server shows only its first 32
 * characters), with its `program_name` (idem sets it to the owner). Needs VIEW SERVER STATE
 * (SQL Server 2022: VIEW SERVER PERFORMANCE STATE); without it the holder stays unnamed.
 */
export const APPLOCK_HOLDER_SQL = `select top (1) s.session_id, s.program_name, s.host_name, s.host_process_id
from sys.dm_tran_locks l join sys.dm_exec_sessions s on s.session_id = l.request_session_id
where l.resource_type = N'APPLICATION' and l.resource_database_id = db_id()
  and l.request_owner_type = N'SESSION' and l.request_mode = N'X' and l.request_status = N'GRANT'
  and l.request_session_id <> @@spid and charindex(left(@resource, 32), l.resource_description) > 0
order by s.login_time;`;

/** What a `sp_getapplock` return code means for one attempt. */
export type GetAppLockOutcome =
  | { readonly kind: 'granted' }
  | { readonly kind: 'held' }
  | { readonly kind: 'error'; readonly message: string };

const FAILURES: Readonly<Record<number, string>> = {
  [-2]: 'the lock request was cancelled',
  [-3]: 'the lock request was chosen as a deadlock victim',
  [-999]: 'parameter validation or other call error',
};

/**
 * Maps a `sp_getapplock` return code: `>= 0` granted (0 at once, 1 after waiting), `-1` timed
 * out, i.e. held by another session (`@LockTimeout = 0`), any other negative an error.
 */
export function interpretGetAppLockResult(code: number): GetAppLockOutcome {
  if (code >= 0) return { kind: 'granted' };
  if (code === -1) return { kind: 'held' };
  return { kind: 'error', message: `sp_getapplock returned ${code}: ${FAILURES[code] ?? 'an undocumented failure'}` };
}

interface HolderRow extends Record<string, unknown> {
  session_id: number;
  program_name: string | null;
  host_name: string | null;
  host_process_id: number | null;
}

/** Describes the holder for the second run's message, never failing the attempt. */
async function describeHolder(session: MssqlSession, resource: MssqlSessionParameter): Promise<string> {
  try {
    const [row] = await session.query<HolderRow>(APPLOCK_HOLDER_SQL, [resource]);
    if (!row) return 'another session (not visible: the login needs VIEW SERVER STATE to see lock holders)';
    const where = [row.host_name ? `on ${row.host_name}` : '', row.host_process_id ? `pid ${row.host_process_id}` : ''].filter(Boolean).join(' ');
    return `"${row.program_name ?? 'unknown program'}" (session ${row.session_id}${where ? ` ${where}` : ''})`;
  } catch (error) {
    return `another session (could not look it up: ${(error as Error).message})`;
  }
}

/**
 * Takes `sp_getapplock` on a dedicated tedious connection that lives exactly as long as the run
 * (never knex's pool: the lock belongs to the session, and a pooled session can be handed to
 * other work or reaped while idle). The session's `program_name` carries the owner. Closing the
 * session releases the lock even if `sp_releaseapplock` fails, and a killed run's session ends
 * with its TCP connection.
 *
 * @throws IdemError (code APP_LOCK) for a negative return code other than -1 or a failed
 *   `sp_getapplock` call; the driver's error when the server cannot be reached.
 */
export async function tryAcquireMssqlAppLock(
  settings: MssqlConnectionSettings,
  requestTimeoutMs: number,
  request: AppLockRequest,
): Promise<AppLockAttempt> {
  const resource: MssqlSessionParameter = {
    name: 'resource',
    type: TYPES.NVarChar,
    value: mssqlAppLockResource(request.name),
    options: { length: MSSQL_APPLOCK_RESOURCE_MAX },
  };
  const session = await MssqlSession.open(mssqlTediousConfig(settings, { appName: `idem ${request.owner}`, requestTimeoutMs }));
  let outcome: GetAppLockOutcome;
  try {
    const [row] = await session.query<{ result: number }>(GET_APPLOCK_SQL, [resource]);
    outcome = interpretGetAppLockResult(Number(row?.result));
    if (outcome.kind === 'held') {
      const holder = await describeHolder(session, resource);
      await session.close();
      return { acquired: false, holder };
    }
  } catch (error) {
    await session.close();
    throw new IdemError(`app lock "${request.name}" could not be taken on SQL Server: ${(error as Error).message}`, { code: 'APP_LOCK', cause: error });
  }
  if (outcome.kind === 'error') {
    await session.close();
    throw new IdemError(`app lock "${request.name}" could not be taken on SQL Server: ${outcome.message}`, { code: 'APP_LOCK' });
  }

  let released = false;
  const lock: AppLock = {
    name: request.name,
    expiresUnlessRenewed: false,
    assertValidNow() {
      if (released) throw new LockLostError(request.name, 'the lock was released');
      if (session.failure) throw new LockLostError(request.name, `lock connection failed: ${session.failure.message}`, session.failure);
    },
    async assertValid() {
      lock.assertValidNow();
    },
    async assertHeld() {
      if (released) throw new LockLostError(request.name, 'the lock was released');
      if (session.failure) throw new LockLostError(request.name, `lock connection failed: ${session.failure.message}`, session.failure);
      let mode: unknown;
      try {
        [{ mode } = { mode: undefined }] = await session.query<{ mode: string }>(APPLOCK_MODE_SQL, [resource]);
      } catch (error) {
        throw new LockLostError(request.name, (error as Error).message, error);
      }
      if (mode !== 'Exclusive') throw new LockLostError(request.name, `the session no longer holds it (APPLOCK_MODE is ${String(mode)})`);
    },
    async release() {
      if (released) return;
      released = true;
      // Closing the session frees the lock even when the explicit release fails.
      await session.query(RELEASE_APPLOCK_SQL, [resource]).catch(() => undefined);
      await session.close();
    },
  };
  return { acquired: true, lock };
}
