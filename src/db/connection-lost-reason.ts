/**
 * Error codes that mean an open connection was lost, by the drivers and the servers: Node's
 * socket errors; PostgreSQL's 57P01-57P03 (the backend terminated by an administrator, a crash or
 * a shutdown; https://www.postgresql.org/docs/current/errcodes-appendix.html); mysql2's lost
 * connection and the server's "connection was killed" and "shutdown in progress"; tedious's
 * ESOCKET and ECONNCLOSED. SQLSTATE class 08 is {@link CONNECTION_EXCEPTION}.
 */
const LOST_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNABORTED',
  '57P01', '57P02', '57P03',
  'PROTOCOL_CONNECTION_LOST', 'ER_CONNECTION_KILLED', 'ER_SERVER_SHUTDOWN', 'ER_QUERY_INTERRUPTED', 'ESOCKET', 'ECONNCLOSED',
]);

/**
 * SQLSTATE class 08, connection exception, every code of it: PostgreSQL's 08000-08006 and its
 * 08P01, which PgBouncer also sends when it ends a client's session, as when the server
 * connection holding the client's transaction went away ("server conn crashed?").
 */
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;

/** What pg and mysql2 say, without a code, of a connection already gone. */
const LOST_MESSAGES = /Connection terminated|connection error and is not queryable|Can't add new command when connection is in closed state|connection is in closed state|The server closed the connection/i;

/**
 * The driver's words when `error` (or an error behind it, through `cause` and `AggregateError`)
 * means the database connection was lost mid-work, or undefined for any other error. A statement
 * the database rejected, a constraint, a deadlock: undefined.
 */
export function connectionLostReason(error: unknown, depth = 0): string | undefined {
  if (typeof error !== 'object' || error === null || depth > 5) return undefined;
  const code = (error as { code?: unknown }).code;
  const message = String((error as Error).message ?? '');
  if ((typeof code === 'string' && (LOST_CODES.has(code) || CONNECTION_EXCEPTION.test(code))) || LOST_MESSAGES.test(message)) return message.split('\n')[0] || String(code);
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const reason = connectionLostReason(inner, depth + 1);
      if (reason !== undefined) return reason;
    }
  }
  return connectionLostReason((error as { cause?: unknown }).cause, depth + 1);
}
