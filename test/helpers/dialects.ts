import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';

/** The dialects the behavioural suite runs on. `TEST_DIALECTS=sqlite,postgres` narrows it. */
export type TestDialect = 'sqlite' | 'postgres';
const ALL: TestDialect[] = ['sqlite', 'postgres'];
export const DIALECTS: TestDialect[] = process.env.TEST_DIALECTS
  ? ALL.filter((d) => process.env.TEST_DIALECTS!.split(',').includes(d))
  : ALL;

/** The real local PostgreSQL (trust auth); tests create one database per test database. */
export const PG_ADMIN_URL = process.env.IDEM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  readonly dialect: TestDialect;
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for one test: a temp SQLite file, or a PostgreSQL database named from
 * the test's identity (so parallel test files never share one).
 */
export async function createTestDatabase(dialect: TestDialect, identity: string): Promise<TestDatabase> {
  const suffix = createHash('sha1').update(`${identity}:${process.pid}:${Math.random()}`).digest('hex').slice(0, 12);
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-test-'));
    return { dialect, url: `sqlite:${path.join(dir, 'idem.sqlite3')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `idem_t_${suffix}`;
  const admin = knexFactory({ client: 'pg', connection: PG_ADMIN_URL, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`create database ${name}`);
  } finally {
    await admin.destroy();
  }
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  return {
    dialect,
    url,
    drop: async () => {
      const dropper = knexFactory({ client: 'pg', connection: PG_ADMIN_URL, pool: { min: 0, max: 1 } });
      try {
        await dropper.raw(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.destroy();
      }
    },
  };
}
