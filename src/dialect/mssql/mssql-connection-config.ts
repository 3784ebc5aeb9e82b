import type { Knex } from 'knex';
import { type ConnectionConfiguration, TYPES } from 'tedious';
import { UsageError } from '../../errors/usage-error.ts';

/** How staging rows reach SQL Server: a TDS bulk load (the default) or parameterised INSERTs. */
export type MssqlStagingLoad = 'bulk' | 'insert';

/** The parts of an `mssql://` / `sqlserver://` URL idem uses. */
export interface MssqlConnectionSettings {
  readonly server: string;
  /** @defaultValue 1433 */
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Undefined: the login's default database. */
  readonly database: string | undefined;
  /** `?encrypt=`: TLS for the whole session. @defaultValue true (tedious' default) */
  readonly encrypt: boolean;
  /** `?trustServerCertificate=`: accept a self-signed server certificate. @defaultValue false */
  readonly trustServerCertificate: boolean;
  /** `?stagingLoad=`: `bulk` (TDS bulk load) or `insert` (parameterised INSERT chunks). @defaultValue 'bulk' */
  readonly stagingLoad: MssqlStagingLoad;
}

/** The query parameters an `mssql://` URL accepts; anything else is a usage error (a typo must not pass silently). */
const PARAMETERS = ['encrypt', 'trustServerCertificate', 'stagingLoad'] as const;

/** Default SQL Server port. */
export const MSSQL_DEFAULT_PORT = 1433;

/** `program_name` / `appName` is nvarchar(128) on the server. */
export const MSSQL_APP_NAME_MAX = 128;

function booleanParameter(name: string, value: string | null, fallback: boolean): boolean {
  if (value === null) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`DATABASE_URL parameter ${name} must be true or false (got ${JSON.stringify(value)})`);
}

/**
 * Parses `mssql://user:password@host:port/database?encrypt=…&trustServerCertificate=…` (also
 * `sqlserver://`). User, password and database are percent-decoded, so a password with `@`, `:`
 * or `/` must be percent-encoded in the URL (`p%40ss`).
 *
 * @throws UsageError for another scheme, a missing host or user, or an unknown or bad parameter.
 * @example parseMssqlUrl('mssql://sa:S3cret%21@127.0.0.1:1433/etl?trustServerCertificate=true')
 */
export function parseMssqlUrl(databaseUrl: string): MssqlConnectionSettings {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new UsageError('DATABASE_URL is not a valid mssql:// URL (percent-encode special characters in the password)');
  }
  if (url.protocol !== 'mssql:' && url.protocol !== 'sqlserver:') {
    throw new UsageError(`DATABASE_URL must start with mssql:// or sqlserver:// (got "${url.protocol}")`);
  }
  const server = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!server) throw new UsageError('DATABASE_URL mssql:// needs a host (mssql://user:password@host:1433/database)');
  const user = decodeURIComponent(url.username);
  if (!user) throw new UsageError('DATABASE_URL mssql:// needs a user (mssql://user:password@host:1433/database)');
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database.includes('/')) throw new UsageError(`DATABASE_URL mssql:// path must be one database name (got "${database}")`);
  for (const key of url.searchParams.keys()) {
    if (!(PARAMETERS as readonly string[]).includes(key)) {
      throw new UsageError(`DATABASE_URL parameter ${key} is not supported for SQL Server; use ${PARAMETERS.join(', ')}`);
    }
  }
  const stagingLoad = url.searchParams.get('stagingLoad') ?? 'bulk';
  if (stagingLoad !== 'bulk' && stagingLoad !== 'insert') {
    throw new UsageError(`DATABASE_URL parameter stagingLoad must be bulk or insert (got ${JSON.stringify(stagingLoad)})`);
  }
  return {
    server,
    port: url.port ? Number(url.port) : MSSQL_DEFAULT_PORT,
    user,
    password: decodeURIComponent(url.password),
    database: database || undefined,
    encrypt: booleanParameter('encrypt', url.searchParams.get('encrypt'), true),
    trustServerCertificate: booleanParameter('trustServerCertificate', url.searchParams.get('trustServerCertificate'), false),
    stagingLoad,
  };
}

/**
 * knex's mssql client binds a JS `Date` as the legacy `datetime` type, which rounds to 1/300 s
 * (`.001` becomes `.000`). idem's instants are `datetime2(3)`: bind Dates as `datetime2`.
 */
export function mssqlMapBinding(value: unknown): { value: unknown; type: unknown } | undefined {
  return value instanceof Date ? { value, type: TYPES.DateTime2 } : undefined;
}

/**
 * The knex `connection` for SQL Server. knex drives tedious itself (not the `mssql` package);
 * `useUTC: true` makes tedious write and read `date` / `datetime2` through UTC getters, so
 * values never shift with the process time zone.
 */
export function mssqlKnexConnection(settings: MssqlConnectionSettings, requestTimeoutMs: number): Knex.MsSqlConnectionConfig {
  return {
    server: settings.server,
    port: settings.port,
    userName: settings.user,
    password: settings.password,
    database: settings.database as string,
    requestTimeout: requestTimeoutMs,
    options: {
      encrypt: settings.encrypt,
      trustServerCertificate: settings.trustServerCertificate,
      useUTC: true,
      appName: 'idem',
      mapBinding: mssqlMapBinding,
    },
  };
}

/**
 * A tedious configuration for a connection idem opens itself (the app lock's dedicated session).
 * `appName` becomes the session's `program_name`, which a second run reads to name the holder.
 */
export function mssqlTediousConfig(settings: MssqlConnectionSettings, options: { appName: string; requestTimeoutMs: number }): ConnectionConfiguration {
  return {
    server: settings.server,
    authentication: { type: 'default', options: { userName: settings.user, password: settings.password } },
    options: {
      port: settings.port,
      ...(settings.database === undefined ? {} : { database: settings.database }),
      encrypt: settings.encrypt,
      trustServerCertificate: settings.trustServerCertificate,
      useUTC: true,
      appName: options.appName.slice(0, MSSQL_APP_NAME_MAX),
      requestTimeout: options.requestTimeoutMs,
      rowCollectionOnDone: false,
      rowCollectionOnRequestCompletion: false,
      useColumnNames: false,
    },
  };
}
