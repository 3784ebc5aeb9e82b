import path from 'node:path';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import { UsageError } from '../errors/usage-error.ts';
import type { DialectAdapter } from './dialect-adapter.ts';

/**
 * Picks the adapter for a database URL: `sqlite:PATH` (relative to `projectDir`; `sqlite:///abs`
 * also works), `postgres://…` / `postgresql://…`, `mysql://…` / `mariadb://…`, `mssql://…` /
 * `sqlserver://…`. Adapters load lazily, so a run never pays for the drivers of dialects it does
 * not use. `settings` carries the dialect settings from the environment (defaults when absent).
 * @throws UsageError for any other scheme.
 */
/**
 * The file of a `sqlite:` database URL, resolved against the project directory; undefined for
 * any other URL (or `sqlite:` without a path).
 */
export function sqliteFileOf(databaseUrl: string, projectDir: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const file = databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '');
  return file ? path.resolve(projectDir, file) : undefined;
}

export async function createDialectAdapter(
  databaseUrl: string,
  projectDir: string,
  settings: Partial<Pick<ResolvedConfig, 'mssqlRequestTimeoutMs'>> = {},
): Promise<DialectAdapter> {
  if (databaseUrl.startsWith('sqlite:')) {
    const file = databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!file) throw new UsageError('DATABASE_URL sqlite: needs a file path (got "sqlite:")');
    const { SqliteDialect } = await import('./sqlite/sqlite-dialect.ts');
    return new SqliteDialect(path.resolve(projectDir, file));
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const { PostgresDialect } = await import('./postgres/postgres-dialect.ts');
    return new PostgresDialect(databaseUrl);
  }
  if (/^(mysql|mariadb):\/\//.test(databaseUrl)) {
    const { MysqlDialect } = await import('./mysql/mysql-dialect.ts');
    return new MysqlDialect(databaseUrl);
  }
  if (/^(mssql|sqlserver):\/\//.test(databaseUrl)) {
    const { MssqlDialect } = await import('./mssql/mssql-dialect.ts');
    return new MssqlDialect(databaseUrl, settings.mssqlRequestTimeoutMs === undefined ? {} : { requestTimeoutMs: settings.mssqlRequestTimeoutMs });
  }
  throw new UsageError(`DATABASE_URL has an unknown scheme (got "${databaseUrl.split(':')[0]}:"); use sqlite:, postgres://, postgresql://, mysql://, mariadb://, mssql:// or sqlserver://`);
}
