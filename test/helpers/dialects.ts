import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { describe, inject } from 'vitest';

/** The dialects the behavioural suite runs on. `TEST_DIALECTS=sqlite,postgres` narrows it. */
export type TestDialect = 'sqlite' | 'postgres' | 'mysql' | 'mssql';
const ALL: TestDialect[] = ['sqlite', 'postgres', 'mysql', 'mssql'];
export const DIALECTS: TestDialect[] = process.env.TEST_DIALECTS
  ? ALL.filter((d) => process.env.TEST_DIALECTS!.split(',').includes(d))
  : ALL;

/** The real local PostgreSQL (trust auth); tests create one database per test database. */
export const PG_ADMIN_URL = process.env.IDEM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The real local MariaDB (root, no password); tests create one database per test database. */
export const MYSQL_ADMIN_URL = process.env.IDEM_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
/**
 * SQL Server for the suite: given as `IDEM_TEST_MSSQL_URL` (e.g. the docker-compose server), or
 * provided by test/global-setup.ts from a testcontainers container where a container runtime
 * exists. Neither: SQL Server runs are skipped.
 */
export const MSSQL_ADMIN_URL: string | undefined = process.env.IDEM_TEST_MSSQL_URL ?? inject('mssqlTestUrl');

/** Why a dialect cannot run here, or undefined when it can. */
export function unavailableReason(dialect: TestDialect): string | undefined {
  if (dialect === 'mssql' && !MSSQL_ADMIN_URL) {
    return inject('mssqlTestUnavailable') ?? 'no container runtime for SQL Server here (testcontainers found none) and no IDEM_TEST_MSSQL_URL';
  }
  return undefined;
}

/**
 * `describe` once per dialect, titled `<dialect>: <title>`. A dialect that cannot run here is
 * still listed, as skipped, with the reason in its title (never silently left out).
 */
export function describeEachDialect(title: string, suite: (dialect: TestDialect) => void): void {
  for (const dialect of DIALECTS) {
    const reason = unavailableReason(dialect);
    describe.skipIf(reason !== undefined)(`${dialect}: ${title}${reason ? ` (skipped: ${reason})` : ''}`, () => suite(dialect));
  }
}

export interface TestDatabase {
  readonly dialect: TestDialect;
  readonly url: string;
  drop(): Promise<void>;
}

async function withAdmin<T>(client: string, url: string, work: (admin: Knex) => Promise<T>): Promise<T> {
  // SQL Server: knex cannot read an mssql:// URL itself (port, TLS parameters), idem's adapter can.
  const connection = client === 'mssql' ? new (await import('../../src/dialect/mssql/mssql-dialect.ts')).MssqlDialect(url).knexConfig().connection! : url;
  const admin = knexFactory({ client, connection, pool: { min: 0, max: 1 } });
  try {
    return await work(admin);
  } finally {
    await admin.destroy();
  }
}

/**
 * A fresh, empty database for one test: a temp SQLite file, or a database on the server named
 * from the test's identity (so parallel test files never share one).
 */
export async function createTestDatabase(dialect: TestDialect, identity: string): Promise<TestDatabase> {
  const name = `idem_t_${createHash('sha1').update(`${identity}:${process.pid}:${Math.random()}`).digest('hex').slice(0, 12)}`;
  const withDatabase = (url: string): string => url.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);
  switch (dialect) {
    case 'sqlite': {
      const dir = mkdtempSync(path.join(tmpdir(), 'idem-test-'));
      return { dialect, url: `sqlite:${path.join(dir, 'idem.sqlite3')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    }
    case 'postgres':
      await withAdmin('pg', PG_ADMIN_URL, (admin) => admin.raw(`create database ${name}`));
      return { dialect, url: withDatabase(PG_ADMIN_URL), drop: () => withAdmin('pg', PG_ADMIN_URL, (a) => a.raw(`drop database if exists ${name} with (force)`)) };
    case 'mysql':
      await withAdmin('mysql2', MYSQL_ADMIN_URL, (admin) => admin.raw(`create database ${name} character set utf8mb4`));
      return { dialect, url: withDatabase(MYSQL_ADMIN_URL), drop: () => withAdmin('mysql2', MYSQL_ADMIN_URL, (a) => a.raw(`drop database if exists ${name}`)) };
    case 'mssql': {
      const admin = MSSQL_ADMIN_URL!;
      await withAdmin('mssql', admin, (a) => a.raw(`create database ${name}`));
      return {
        dialect,
        url: withDatabase(admin),
        drop: () => withAdmin('mssql', admin, (a) => a.raw(`alter database ${name} set single_user with rollback immediate; drop database ${name}`)),
      };
    }
  }
}
