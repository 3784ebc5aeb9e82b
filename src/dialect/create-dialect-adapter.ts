import path from 'node:path';
import { UsageError } from '../errors/usage-error.ts';
import type { DialectAdapter } from './dialect-adapter.ts';
import { PostgresDialect } from './postgres/postgres-dialect.ts';
import { SqliteDialect } from './sqlite/sqlite-dialect.ts';

/**
 * Picks the adapter for a database URL: `sqlite:PATH` (relative to `projectDir`; `sqlite:///abs`
 * also works), `postgres://…` / `postgresql://…`.
 * @throws UsageError for any other scheme.
 */
export function createDialectAdapter(databaseUrl: string, projectDir: string): DialectAdapter {
  if (databaseUrl.startsWith('sqlite:')) {
    const file = databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!file) throw new UsageError('DATABASE_URL sqlite: needs a file path (got "sqlite:")');
    return new SqliteDialect(path.resolve(projectDir, file));
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return new PostgresDialect(databaseUrl);
  throw new UsageError(`DATABASE_URL has an unknown scheme (got "${databaseUrl.split(':')[0]}:"); use sqlite:, postgres:// or postgresql://`);
}
