import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { inject } from 'vitest';
import { createDialectAdapter } from '../../src/dialect/create-dialect-adapter.ts';
import type { DialectAdapter } from '../../src/dialect/dialect-adapter.ts';
import { templateDir, templateName } from './template-database-names.ts';
import { ADMIN_URLS, createTestDatabase, type TestDatabase, type TestDialect } from './dialects.ts';
import { openMigratedDatabase } from './test-db.ts';

/**
 * The suite run's id (test/global-setup.ts provides it, and drops the run's templates at its end);
 * a process of its own when no global setup ran.
 */
let runId: string | undefined;
function thisRun(): string {
  return (runId ??= inject('testRunId') ?? randomBytes(4).toString('hex'));
}

const templates = new Map<TestDialect, Promise<void>>();

/**
 * A fresh database with every migration applied, for one test, as {@link createTestDatabase}
 * names it. Migrations run once per dialect and suite run (in-process, into a template), and each
 * test gets a copy: a copied file on SQLite, `CREATE DATABASE … TEMPLATE` on PostgreSQL, the
 * template's tables re-created with `CREATE TABLE … LIKE` and their rows copied on MariaDB (it has
 * no templates). Measured against a new database and `idem migrate` as a child process, on a
 * loaded 2-core VM, median of 5: SQLite 1 ms against 1.7 s, PostgreSQL 0.75 s against 5.2 s,
 * MariaDB 0.9 s against 5.5 s. SQL Server, and
 * a MariaDB template holding what `LIKE` does not copy (foreign keys, views, triggers), are
 * migrated in-process instead. For a test whose subject is migrating, use
 * {@link createTestDatabase} and run `idem migrate`.
 */
export async function createMigratedTestDatabase(dialect: TestDialect, identity: string): Promise<TestDatabase> {
  if (dialect === 'mssql') return migratedInPlace(dialect, identity);
  let template = templates.get(dialect);
  if (!template) templates.set(dialect, (template = buildTemplate(dialect)));
  await template;
  if (dialect === 'sqlite') {
    const testDb = await createTestDatabase(dialect, identity);
    copyFileSync(sqliteTemplateFile(), testDb.url.slice('sqlite:'.length));
    return testDb;
  }
  const label = identity.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, 24).replace(/^_+|_+$/g, '');
  const database = `${label ? `idem_t_${label}` : 'idem_t'}_${randomBytes(6).toString('hex')}`;
  const drop = async () => withServer(dialect, async (admin) => void (await admin.raw((await serverAdapter(dialect)).serverDatabaseSql(database)!.drop)));
  try {
    await copyTemplate(dialect, database);
  } catch (error) {
    await drop();
    throw error;
  }
  let dropped: Promise<void> | undefined;
  return { dialect, url: serverUrl(dialect, database), drop: () => (dropped ??= drop()) };
}

async function migratedInPlace(dialect: TestDialect, identity: string): Promise<TestDatabase> {
  const testDb = await createTestDatabase(dialect, identity);
  await (await openMigratedDatabase(testDb.url)).close();
  return testDb;
}

function sqliteTemplateFile(): string {
  return path.join(templateDir(thisRun()), 'idem.sqlite3');
}

/** Builds this run's template of `dialect` unless another worker did; safe to race. */
async function buildTemplate(dialect: TestDialect): Promise<void> {
  const dir = templateDir(thisRun());
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `made-${dialect}`), ADMIN_URLS[dialect] ?? '');
  const name = templateName(thisRun());
  if (dialect === 'sqlite') {
    if (existsSync(sqliteTemplateFile())) return;
    // Built under a name of its own, then renamed into place: a reader sees a whole file or none.
    const building = path.join(dir, `building-${randomBytes(6).toString('hex')}.sqlite3`);
    await (await openMigratedDatabase(`sqlite:${building}`)).close();
    renameSync(building, sqliteTemplateFile());
    return;
  }
  await withServer(dialect, async (admin) => {
    if (dialect === 'postgres') {
      if ((await admin.raw('select 1 from pg_database where datname = ?', [name])).rows.length > 0) return;
      const building = `${name}_b${randomBytes(4).toString('hex')}`;
      await admin.raw(`create database ${building}`);
      await (await openMigratedDatabase(serverUrl(dialect, building))).close();
      try {
        await admin.raw(`alter database ${building} rename to ${name}`);
      } catch {
        // Another worker's template is in place already.
        await admin.raw(`drop database if exists ${building} with (force)`);
      }
      return;
    }
    // MariaDB has no rename of a database: one worker builds it while holding a named lock.
    await admin.raw('select get_lock(?, 300)', [name]);
    try {
      const [done] = await admin.raw('select 1 from information_schema.schemata where schema_name = ?', [name]);
      if ((done as unknown[]).length > 0) return;
      const building = `${name}_b`;
      await admin.raw(`drop database if exists ${building}`);
      await admin.raw(`create database ${building}`);
      await (await openMigratedDatabase(serverUrl(dialect, building))).close();
      await admin.raw(`create database ${name}`);
      for (const table of await mysqlTables(admin, building)) await admin.raw(`rename table \`${building}\`.\`${table}\` to \`${name}\`.\`${table}\``);
      await admin.raw(`drop database ${building}`);
    } finally {
      await admin.raw('select release_lock(?)', [name]);
    }
  });
}

async function copyTemplate(dialect: TestDialect, target: string): Promise<void> {
  const name = templateName(thisRun());
  await withServer(dialect, async (admin) => {
    if (dialect === 'postgres') {
      // Two copies of one template at once can meet "source database is being accessed by other users".
      for (let attempt = 1; ; attempt++) {
        try {
          await admin.raw(`create database ${target} template ${name}`);
          return;
        } catch (error) {
          if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
        }
      }
    }
    await admin.raw(`create database ${target}`);
    const [unlikeable] = await admin.raw(
      `select (select count(*) from information_schema.referential_constraints where constraint_schema = ?)
            + (select count(*) from information_schema.views where table_schema = ?)
            + (select count(*) from information_schema.triggers where trigger_schema = ?) as n`,
      [name, name, name],
    );
    if (Number((unlikeable as { n: number }[])[0]!.n) > 0) {
      await (await openMigratedDatabase(serverUrl(dialect, target))).close();
      return;
    }
    for (const table of await mysqlTables(admin, name)) {
      await admin.raw(`create table \`${target}\`.\`${table}\` like \`${name}\`.\`${table}\``);
      await admin.raw(`insert into \`${target}\`.\`${table}\` select * from \`${name}\`.\`${table}\``);
    }
  });
}

async function mysqlTables(admin: Knex, database: string): Promise<string[]> {
  const [rows] = await admin.raw("select table_name as t from information_schema.tables where table_schema = ? and table_type = 'BASE TABLE'", [database]);
  return (rows as { t: string }[]).map((row) => row.t);
}

function serverUrl(dialect: TestDialect, database: string): string {
  return ADMIN_URLS[dialect]!.replace(/^([a-z]+:\/\/[^/?]*)(\/[^?]*)?/, `$1/${database}`);
}

const adapters = new Map<TestDialect, Promise<DialectAdapter>>();

function serverAdapter(dialect: TestDialect): Promise<DialectAdapter> {
  let adapter = adapters.get(dialect);
  // A server URL names no file, so no project directory applies.
  if (!adapter) adapters.set(dialect, (adapter = createDialectAdapter(ADMIN_URLS[dialect]!, process.cwd())));
  return adapter;
}

/** Runs `work` on one connection of its own to the dialect's admin database (held throughout: MariaDB's named lock lives on it). */
async function withServer<T>(dialect: TestDialect, work: (admin: Knex) => Promise<T>): Promise<T> {
  const admin = knexFactory({ ...(await serverAdapter(dialect)).knexConfig(), pool: { min: 1, max: 1, idleTimeoutMillis: 600_000 } });
  try {
    return await work(admin);
  } finally {
    await admin.destroy();
  }
}
