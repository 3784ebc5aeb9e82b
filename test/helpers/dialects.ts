import { describe, inject } from 'vitest';
import { createScratchDatabase } from '../../src/db/create-scratch-database.ts';

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

/**
 * `describe` on one dialect only, titled `<dialect>: <title>` like {@link describeEachDialect}: for
 * a suite whose subject is not the database (HTTP answers, sources, definitions, orchestration),
 * where running it again per dialect checks nothing new. The dialect is the first of
 * {@link DIALECTS} (SQLite, the fastest, unless `TEST_DIALECTS` narrows); `TEST_ALL_DIALECTS=1`
 * runs such a suite on every dialect again. Each file that uses it is listed, with the reason one
 * dialect is enough, in test/helpers/one-dialect-files.ts, and test/unit/one-dialect-files.test.ts
 * holds the list to the code.
 */
export function describeOneDialect(title: string, suite: (dialect: TestDialect) => void): void {
  if (process.env.TEST_ALL_DIALECTS === '1') return describeEachDialect(title, suite);
  const dialect = DIALECTS.find((d) => unavailableReason(d) === undefined);
  describe.skipIf(dialect === undefined)(dialect ? `${dialect}: ${title}` : `${title} (skipped: no dialect available)`, () => {
    if (dialect) suite(dialect);
  });
}

export interface TestDatabase {
  readonly dialect: TestDialect;
  readonly url: string;
  drop(): Promise<void>;
}

/** The server each dialect's test databases are created on; SQLite's are temp files. */
export const ADMIN_URLS: Readonly<Record<TestDialect, string | undefined>> = { sqlite: undefined, postgres: PG_ADMIN_URL, mysql: MYSQL_ADMIN_URL, mssql: MSSQL_ADMIN_URL };

/**
 * A fresh, empty database for one test (see `createScratchDatabase`): a temp SQLite file, or a
 * database on the dialect's server named `idem_t_<identity, shortened>_<12 hex>` (so parallel
 * test files never share one, and a leftover one says which test made it).
 */
export async function createTestDatabase(dialect: TestDialect, identity: string): Promise<TestDatabase> {
  const label = identity.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, 24).replace(/^_+|_+$/g, '');
  const database = await createScratchDatabase({ serverUrl: ADMIN_URLS[dialect], prefix: label ? `idem_t_${label}` : 'idem_t' });
  return { dialect, ...database };
}
