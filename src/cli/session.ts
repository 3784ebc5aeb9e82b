import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { sqliteFileOf } from '../dialect/create-dialect-adapter.ts';
import { UsageError } from '../errors/usage-error.ts';
import { loadConfig } from '../config/load-config.ts';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import { assertDatabaseReachable } from '../db/assert-database-reachable.ts';
import { openDatabase } from '../db/open-database.ts';
import { createLogger } from '../logging/create-logger.ts';
import { assertMigrated } from '../migration/migrator.ts';

/** What a command works with: settings, logger and the open database. */
export interface Session {
  readonly config: ResolvedConfig;
  readonly logger: Logger;
  readonly db: Database;
}

/**
 * Opens a session, runs `work`, and always closes the database. It first proves the database
 * answers (`assertDatabaseReachable`: DatabaseUnavailableError, exit 75, naming only the host), and
 * with `migrated` (the default) refuses a database with pending migrations. With `existing` (the
 * read-only commands) it refuses a SQLite file that does not exist rather than create it (UsageError).
 */
export async function withSession<T>(work: (session: Session) => Promise<T>, options: { config?: ResolvedConfig; migrated?: boolean; existing?: boolean } = {}): Promise<T> {
  const config = options.config ?? loadConfig();
  const file = sqliteFileOf(config.databaseUrl, config.projectDir);
  if (options.existing && file !== undefined && !existsSync(file)) {
    throw new UsageError(`the SQLite database ${file} does not exist, and this command never creates one: check DATABASE_URL (or run idem migrate to create it)`);
  }
  const logger = await createLogger({ level: config.logLevel });
  const db = await openDatabase(config);
  try {
    await assertDatabaseReachable(db, config.databaseUrl);
    // Dialect settings worth knowing when reading a run's log (SQL Server: the request timeout).
    const settings = db.adapter.describeSettings();
    if (Object.keys(settings).length > 0) logger.info({ database: db.description, ...settings }, `${db.adapter.name} settings`);
    if (options.migrated !== false) await assertMigrated(db, config.projectDir);
    return await work({ config, logger, db });
  } finally {
    await db.close();
  }
}
