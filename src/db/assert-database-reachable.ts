import { redactUrl } from '../config/redact-url.ts';
import { DatabaseUnavailableError } from '../errors/database-unavailable-error.ts';
import { UsageError } from '../errors/usage-error.ts';
import type { Database } from './database.ts';

/** Error codes of Node's `net`/`dns` and of the drivers that mean "not reachable now", with a short reason. */
const UNREACHABLE: ReadonlyMap<string, string> = new Map([
  ['ECONNREFUSED', 'connection refused'],
  ['ETIMEDOUT', 'connection timed out'],
  ['ENOTFOUND', 'host name not found'],
  ['EAI_AGAIN', 'temporary DNS failure'],
  ['EHOSTUNREACH', 'host unreachable'],
  ['ENETUNREACH', 'network unreachable'],
  ['ECONNRESET', 'connection reset'],
  ['PROTOCOL_CONNECTION_LOST', 'connection lost'],
  // PostgreSQL SQLSTATEs: the server is starting up or shutting down / too many connections.
  ['57P03', 'the server does not accept connections now'],
  ['53300', 'too many connections'],
  // MariaDB / MySQL: too many connections.
  ['ER_CON_COUNT_ERROR', 'too many connections'],
]);

/**
 * Error codes that mean the database refused the setting itself, which no rerun can fix: a login
 * refused, a database that does not exist, a TLS requirement the server cannot meet.
 * PostgreSQL SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html): 28000
 * invalid authorization (no such role, pg_hba.conf), 28P01 invalid password, 3D000 no such
 * database. MySQL/MariaDB: access denied (any code whose SQLSTATE is 28000), unknown database. SQL Server (tedious): ELOGIN, a
 * refused login or a database the login cannot open.
 */
const REFUSED_CODES: ReadonlySet<string> = new Set(['28000', '28P01', '3D000', 'ER_ACCESS_DENIED_ERROR', 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_BAD_DB_ERROR', 'ELOGIN']);

/** The driver's words when the URL asks for TLS and the server has none (pg): a setting, not an outage. */
const NO_TLS = /does not support SSL connections/;

/** The driver's reason a connection error means "this setting is refused", or undefined. */
function refusedReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  const message = (error as Error).message ?? '';
  const sqlState = (error as { sqlState?: unknown }).sqlState;
  if ((typeof code === 'string' && REFUSED_CODES.has(code)) || sqlState === '28000' || NO_TLS.test(message)) return message.split('\n')[0];
  return refusedReason((error as { cause?: unknown }).cause);
}

/** The reason a connection error means "not reachable now", or undefined for any other error. */
function unreachableReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if ((error as Error).name === 'KnexTimeoutError') return 'timed out waiting for a connection';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE.has(code)) return UNREACHABLE.get(code);
  // pg tries each address of a host name (::1, 127.0.0.1) and reports them together.
  if (error instanceof AggregateError) return error.errors.map(unreachableReason).find((r) => r !== undefined);
  return unreachableReason((error as { cause?: unknown }).cause);
}

/** `host:port` of a server database URL, without user or password; `undefined` for a file database. */
export function databaseHostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.host === '' ? undefined : parsed.host;
  } catch {
    return undefined;
  }
}

/**
 * Proves the database answers (one `select 1`) before a command uses it.
 * @throws DatabaseUnavailableError (outcome `unavailable`, exit 75) naming host and port when it
 *   cannot be reached now; UsageError (exit 2) naming `setting` (password hidden) when the
 *   database refuses the setting (a login, a database name, TLS); any other error as the driver
 *   threw it.
 */
export async function assertDatabaseReachable(db: Database, url: string, setting = 'DATABASE_URL'): Promise<void> {
  try {
    await db.knex.raw('select 1');
  } catch (error) {
    const refused = refusedReason(error);
    if (refused !== undefined) throw new UsageError(`${setting} ${redactUrl(url)} was refused: ${refused}; fix the setting (a rerun cannot)`, { cause: error });
    const reason = unreachableReason(error);
    if (reason === undefined) throw error;
    throw new DatabaseUnavailableError(databaseHostOf(url) ?? db.description, reason);
  }
}
