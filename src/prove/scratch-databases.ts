import { copyFileSync } from 'node:fs';
import { createScratchDatabase, type ScratchDatabase } from '../db/create-scratch-database.ts';
import { openDatabase } from '../db/open-database.ts';
import { UsageError } from '../errors/usage-error.ts';
import { migrateLatest } from '../migration/migrator.ts';

/** Where one proof makes its scratch databases. */
export interface ScratchDatabases {
  /**
   * A fresh database with every project migration applied, and nothing else. Its `drop` never
   * throws: a proof's result must not depend on its cleanup.
   */
  create(): Promise<ScratchDatabase>;
  /** Deletes what `create` kept to copy from. Never throws. */
  dispose(): Promise<void>;
}

/** What a proof's databases are called (see `createScratchDatabase`). */
const PREFIX = 'idem_prove';
/** Server dialects whose scratch databases `create database` makes; SQLite needs only a file. */
const SERVER_URL = /^(postgres(ql)?|mysql|mariadb|mssql|sqlserver):\/\//;

/**
 * Scratch databases for one proof. Without `serverUrl`, SQLite files in new temp directories: the
 * first is migrated once and each database is a copy of it (a project whose migrations load
 * through tsx would otherwise pay about a second per database). With `serverUrl`
 * (`postgres://…`, `mysql://…`, `mssql://…`, whose database must exist and whose user may
 * `create database`), each is a database named `idem_prove_<12 hex>` on that server, migrated, so
 * a proof never touches the tables it connects through.
 * @throws UsageError for a `serverUrl` of another scheme.
 */
export function scratchDatabases(projectDir: string, serverUrl?: string): ScratchDatabases {
  if (serverUrl === undefined) return sqliteScratchDatabases(projectDir);
  if (!SERVER_URL.test(serverUrl)) {
    throw new UsageError('--database-url must be a server URL (postgres://, mysql://, mariadb://, mssql:// or sqlserver://); without it, prove uses temp SQLite files');
  }
  return {
    create: async () => migrated(projectDir, await scratch(serverUrl)),
    dispose: async () => undefined,
  };
}

function sqliteScratchDatabases(projectDir: string): ScratchDatabases {
  let template: Promise<ScratchDatabase> | undefined;
  return {
    async create() {
      // Made once, on first use, by whichever check asks first.
      template ??= scratch(undefined).then((database) => migrated(projectDir, database));
      const from = (await template).url.slice('sqlite:'.length);
      const copy = await scratch(undefined);
      copyFileSync(from, copy.url.slice('sqlite:'.length));
      return copy;
    },
    async dispose() {
      await (await template?.catch(() => undefined))?.drop();
    },
  };
}

async function scratch(serverUrl: string | undefined): Promise<ScratchDatabase> {
  const database = await createScratchDatabase({ prefix: PREFIX, serverUrl });
  return { url: database.url, drop: () => database.drop().catch(() => undefined) };
}

/** Applies the project's migrations to `scratch`, dropping it if they fail. */
async function migrated(projectDir: string, database: ScratchDatabase): Promise<ScratchDatabase> {
  try {
    const db = await openDatabase({ databaseUrl: database.url, projectDir });
    try {
      await migrateLatest(db, projectDir);
    } finally {
      // Closing the only connection checkpoints SQLite's WAL into the file, so a copy is complete.
      await db.close();
    }
    return database;
  } catch (error) {
    await database.drop();
    throw error;
  }
}
