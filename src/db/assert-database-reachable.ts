import { DatabaseUnavailableError } from '../errors/database-unavailable-error.ts';
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
 *   cannot be reached now; any other error as the driver threw it.
 */
export async function assertDatabaseReachable(db: Database, url: string): Promise<void> {
  try {
    await db.knex.raw('select 1');
  } catch (error) {
    const reason = unreachableReason(error);
    if (reason === undefined) throw error;
    throw new DatabaseUnavailableError(databaseHostOf(url) ?? db.description, reason);
  }
}
