import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Database } from '../db/database.ts';
import { openDatabase } from '../db/open-database.ts';
import { UsageError } from '../errors/usage-error.ts';
import { migrateLatest } from '../migration/migrator.ts';

/** A throwaway, migrated database that `idem prove` runs a pipeline against. */
export interface ScratchDatabase {
  /** `DATABASE_URL` of the scratch database. */
  readonly url: string;
  /** Deletes it (file or server database). Never throws; safe to call twice. */
  drop(): Promise<void>;
}

/** Where one proof makes its scratch databases. */
export interface ScratchDatabases {
  /** A fresh database with every project migration applied, and nothing else. */
  create(): Promise<ScratchDatabase>;
  /** Deletes what `create` kept to copy from. Never throws. */
  dispose(): Promise<void>;
}

/** Server dialects whose scratch databases `create database` makes; SQLite needs only a file. */
const SERVER_URL = /^(postgres(ql)?|mysql|mariadb|mssql|sqlserver):\/\//;
const SQLITE_FILE = 'prove.sqlite3';

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
    async create() {
      const scratch = await serverScratch(projectDir, serverUrl);
      await migrated(projectDir, scratch);
      return scratch;
    },
    dispose: async () => undefined,
  };
}

function sqliteScratchDatabases(projectDir: string): ScratchDatabases {
  let template: Promise<ScratchDatabase> | undefined;
  return {
    async create() {
      // Made once, on first use, by whichever check asks first.
      template ??= migrated(projectDir, sqliteScratch());
      const from = (await template).url.slice('sqlite:'.length);
      const scratch = sqliteScratch();
      copyFileSync(from, scratch.url.slice('sqlite:'.length));
      return scratch;
    },
    async dispose() {
      await (await template?.catch(() => undefined))?.drop();
    },
  };
}

/** Applies the project's migrations to `scratch`, dropping it if they fail. */
async function migrated(projectDir: string, scratch: ScratchDatabase): Promise<ScratchDatabase> {
  try {
    const db = await openDatabase({ databaseUrl: scratch.url, projectDir });
    try {
      await migrateLatest(db, projectDir);
    } finally {
      // Closing the only connection checkpoints SQLite's WAL into the file, so a copy is complete.
      await db.close();
    }
    return scratch;
  } catch (error) {
    await scratch.drop();
    throw error;
  }
}

function sqliteScratch(): ScratchDatabase {
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-prove-'));
  return { url: `sqlite:${path.join(dir, SQLITE_FILE)}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

async function serverScratch(projectDir: string, serverUrl: string): Promise<ScratchDatabase> {
  const name = `idem_prove_${randomBytes(6).toString('hex')}`;
  const sql = scratchSql(serverUrl, name);
  await withServer(projectDir, serverUrl, (admin) => admin.knex.raw(sql.create));
  let dropped = false;
  return {
    // The database is the URL's first path segment in every supported scheme.
    url: serverUrl.replace(/^([a-z]+:\/\/[^/?]*)(\/[^?]*)?/, `$1/${name}`),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withServer(projectDir, serverUrl, (admin) => admin.knex.raw(sql.drop)).catch(() => undefined);
    },
  };
}

/** The create and drop statements of one dialect; `drop` ends sessions a killed run left behind. */
function scratchSql(serverUrl: string, name: string): { create: string; drop: string } {
  if (/^postgres/.test(serverUrl)) return { create: `create database ${name}`, drop: `drop database if exists ${name} with (force)` };
  if (/^(mysql|mariadb)/.test(serverUrl)) return { create: `create database ${name} character set utf8mb4`, drop: `drop database if exists ${name}` };
  return { create: `create database ${name}`, drop: `alter database ${name} set single_user with rollback immediate; drop database ${name}` };
}

async function withServer<T>(projectDir: string, url: string, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ databaseUrl: url, projectDir });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}
