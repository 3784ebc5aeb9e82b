import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { createMigratedTestDatabase } from '../helpers/migrated-test-database.ts';
import { readInvoices } from '../helpers/read-target.ts';
import { PROJECT_DIR, runCli, runCliWhenUnlocked, startCli, summaryOf } from '../helpers/run-cli.ts';
import { openTestDatabase } from '../helpers/test-db.ts';
import { destinationsEnv, startSandbox } from '../helpers/sandbox.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';

describe('idem CLI: usage errors exit 2 with a sentence on stderr', () => {
  const sqlite = { DATABASE_URL: 'sqlite:/nonexistent-dir-never-opened/x.sqlite3' };

  it('names the missing --date flag', async () => {
    const result = await runCli(['run', 'online-retail-invoices'], sqlite);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('missing required flag --date (expected YYYY-MM-DD) or --file PATH');
  });

  it.each(['2026-02-30', '20261001', '2026-13-01', 'yesterday!'])('rejects the date %s, naming it', async (date) => {
    const result = await runCli(['run', 'online-retail-invoices', '--date', date], sqlite);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--date must be a calendar date written YYYY-MM-DD, today or yesterday (got "${date}")`);
  });

  it('lists the known pipelines for an unknown one', async () => {
    const result = await runCli(['run', 'no-such-pipeline', '--date', '2010-12-01'], sqlite);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown pipeline "no-such-pipeline"; known pipelines: online-retail-invoices, online-retail-products, shop-catalogue');
  });

  it('rejects an unknown flag and an unknown command', async () => {
    expect((await runCli(['run', 'online-retail-invoices', '--dat', '2010-12-01'], sqlite)).code).toBe(2);
    expect((await runCli(['frobnicate'], sqlite)).code).toBe(2);
  });

  it('rejects --date with --file, a missing --file and a bad DATABASE_URL', async () => {
    const both = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01', '--file', 'x.csv'], sqlite);
    expect([both.code, both.stderr]).toEqual([2, 'idem: use one of --date, --file or --catch-up (got --date and --file)\n']);
    const missing = await runCli(['run', 'online-retail-invoices', '--file', 'no/such.csv'], sqlite);
    expect([missing.code, missing.stderr]).toEqual([2, 'idem: --file does not exist (got "no/such.csv")\n']);
    const url = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { DATABASE_URL: 'oracle://x' });
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('DATABASE_URL must start with sqlite:, postgres://, postgresql://, mysql://, mariadb://, mssql:// or sqlserver://');
  });

  it('rejects an out-of-range HTTP setting in a pipeline file as it rejects the same setting in the environment', async () => {
    const project = { ...sqlite, IDEM_PROJECT_DIR: 'test/fixtures/bad-http-project' };
    const destination = await runCli(['run', 'destination-concurrency-1000', '--date', '2010-12-01'], project);
    expect([destination.code, destination.stderr]).toEqual([
      2,
      'idem: pipelines/destination-concurrency-1000.ts: pipeline destinations[0].http.concurrency: must be an integer from 1 to 256 (got 1000)\n',
    ]);
    const destinations = JSON.stringify({ 'sandbox-accounting': { url: 'http://127.0.0.1:9', http: { concurrency: 1000 } } });
    const deployed = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...sqlite, IDEM_DESTINATIONS: destinations });
    expect([deployed.code, deployed.stderr]).toEqual([2, 'idem: IDEM_DESTINATIONS sandbox-accounting.http.concurrency: must be an integer from 1 to 256 (got 1000)\n']);

    const source = await runCli(['run', 'source-max-attempts-0', '--date', '2010-12-01'], project);
    expect([source.code, source.stderr]).toEqual([2, 'idem: pipelines/source-max-attempts-0.ts: httpJsonSource http.retry.maxAttempts: must be an integer ≥ 1 (got 0)\n']);
    const sources = JSON.stringify({ 'online-retail-products': { url: 'http://127.0.0.1:9', http: { retry: { maxAttempts: 0 } } } });
    const sourceDeployed = await runCli(['run', 'online-retail-products', '--date', '2010-12-01'], { ...sqlite, IDEM_SOURCES: sources });
    expect([sourceDeployed.code, sourceDeployed.stderr]).toEqual([2, 'idem: IDEM_SOURCES online-retail-products.http.retry.maxAttempts: must be an integer ≥ 1 (got 0)\n']);
  });

  it('prints a pipeline module that fails to load as one line, and the stack of its error at LOG_LEVEL=debug', async () => {
    const project = mkdtempSync(path.join(tmpdir(), 'idem-broken-module-'));
    try {
      mkdirSync(path.join(project, 'pipelines'));
      const reason = 'pipeline "broken": timeZone must be an IANA time zone (got "Mars/Olympus")';
      writeFileSync(path.join(project, 'pipelines', 'broken.ts'), `export const pipeline = undefined;\nthrow new TypeError(${JSON.stringify(reason)});\n`);
      const env = { ...sqlite, IDEM_PROJECT_DIR: project };
      const plain = await runCli(['pipelines'], env);
      expect([plain.code, plain.stderr]).toEqual([2, `idem: pipelines/broken.ts: ${reason}\n`]);
      const debug = await runCli(['pipelines'], { ...env, LOG_LEVEL: 'debug' });
      expect(debug.code).toBe(2);
      const [first, second, ...stack] = debug.stderr.split('\n');
      expect([first, second]).toEqual([`idem: pipelines/broken.ts: ${reason}`, `caused by: TypeError: ${reason}`]);
      expect(stack.join('\n')).toMatch(/^ {4}at .*broken\.ts/);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('lists the pipelines found', async () => {
    const result = await runCli(['pipelines']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/online-retail-invoices\s+Europe\/London\s+sandbox-accounting \(idempotency-key\)/);
    expect(result.stdout).toMatch(/online-retail-products\s+Europe\/London\s+-\s+/);
  });
});

/**
 * The machine's own `node` when it is older than idem supports, found on PATH outside
 * node_modules/.bin (where `npm test` puts the project's Node first): Node 20 on a machine of
 * this kind.
 */
function olderNodeOnPath(): { node: string; version: string } | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const node = path.join(dir, 'node');
    if (dir.split(path.sep).includes('node_modules') || !existsSync(node)) continue;
    const version = execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    if (Number(version.split('.')[0]) < 22) return { node, version };
  }
  return undefined;
}

const older = olderNodeOnPath();
describe.skipIf(!older)(`idem CLI on a Node older than 22${older ? ` (${older.node})` : ' (skipped: no older node on PATH)'}`, () => {
  it('refuses it with exit 2 and one sentence naming the version found, the versions supported and npx idem, before the SQLite driver loads', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-old-node-'));
    try {
      const result = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { DATABASE_URL: `sqlite:${dir}/idem.sqlite3` }, older!.node);
      expect([result.code, result.signal, result.stdout, result.stderr]).toEqual([
        2,
        null,
        '',
        `idem: this is Node ${older!.version}, and idem runs on Node 22 or newer; ` +
          "run it as `npx idem …` or `npm run idem -- …`, which use the project's own Node from node_modules/.bin\n",
      ]);
      expect(existsSync(path.join(dir, 'idem.sqlite3'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("bin/idem.js's module compile cache", () => {
  it("is kept in the user's cache directory when the temp dir's node-compile-cache cannot be made (another user's, mode 0755)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-compile-cache-'));
    try {
      // A file where Node would make its directory: Node turns the cache off, as it does for another user's directory.
      writeFileSync(path.join(dir, 'node-compile-cache'), '');
      const result = await startCli(['--version'], { TMPDIR: dir, XDG_CACHE_HOME: path.join(dir, 'cache') }).done;
      expect([result.code, result.stderr]).toEqual([0, '']);
      const kept = path.join(dir, 'cache', 'idem', 'node-compile-cache');
      expect(readdirSync(kept).flatMap((version) => readdirSync(path.join(kept, version))).length).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeEachDialect('idem run as a process', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let env: Record<string, string>;
  let sandbox: SandboxApi;

  beforeEach(async (context) => {
    testDb = await createMigratedTestDatabase(dialect, context.task.name);
    sandbox = await startSandbox();
    env = { DATABASE_URL: testDb.url, IDEM_LOCK_LEASE_MS: '1500', IDEM_DESTINATIONS: destinationsEnv(sandbox) };
    db = await openTestDatabase(testDb.url);
  });

  afterEach(async () => {
    await db.close();
    await sandbox.close();
    await testDb.drop();
  });

  it('refuses an unmigrated database and names idem migrate', async () => {
    const empty = await createTestDatabase(dialect, 'unmigrated');
    try {
      const unmigrated = { ...env, DATABASE_URL: empty.url };
      const result = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], unmigrated);
      expect(result.code).toBe(2);
      // Every migration is pending: idem's own and the project's.
      const pending = [...readdirSync(path.join(PROJECT_DIR, 'migrations', 'framework')), ...readdirSync(path.join(PROJECT_DIR, 'migrations'))].filter((f) => f.endsWith('.ts')).length;
      expect(result.stderr).toMatch(new RegExp(`the database is not migrated \\(${pending} pending: .*\\); run \`idem migrate\` first`));
      expect((await runCli(['migrate'], unmigrated)).code).toBe(0);
      const again = await runCli(['migrate'], unmigrated);
      expect(again.code).toBe(0);
      expect(again.logs.at(-1)).toMatchObject({ applied: [], msg: 'already up to date' });
    } finally {
      await empty.drop();
    }
  });

  it('lets one of two processes started together run; the other exits 75 within a second, naming the holder', async () => {
    // Both pause after staging while they hold the lock, so the loser always meets a held lock.
    const slow = { ...env, IDEM_FAILPOINTS: 'after-stage=sleep:3000' };
    const [a, b] = await Promise.all([
      startCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], slow).done,
      startCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], slow).done,
    ]);
    const [winner, loser] = a.code === 0 ? [a, b] : [b, a];
    expect(winner.code).toBe(0);
    expect(summaryOf(winner).outcome).toBe('completed');
    expect(loser.code).toBe(75);
    const held = summaryOf(loser);
    expect(held).toMatchObject({ outcome: 'lock-held', exitCode: 75, level: 40 });
    expect(held.msg).toMatch(/app lock "idem:online-retail-invoices" is held by .*pid \d+ on .*, run 2010-12-01/);
    // Within a second of its own start-up; the winner was still working for 3 s more.
    expect(held.durationMs).toBeLessThan(1000);
    expect(await db.knex('job_runs')).toHaveLength(1);
  });

  it('a run killed with SIGKILL mid-stage leaves no lock behind; the rerun ends with a clean run’s rows', async () => {
    const killed = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01', '--batch-rows', '40'], {
      ...env,
      IDEM_FAILPOINTS: 'mid-stage=kill',
    });
    expect(killed.signal).toBe('SIGKILL');
    // SQLite commits each batch; PostgreSQL's COPY is one statement and MySQL's LOAD DATA runs in one
    // transaction, so a kill inside them leaves none.
    expect(Number((await db.knex('stg_online_retail_invoices').count({ n: '*' }))[0]!.n)).toBe(dialect === 'sqlite' ? 40 : 0);
    expect(await db.knex('job_runs').first()).toMatchObject({ status: 'started', attempts: 1 });

    // PostgreSQL and MySQL free the lock with the session; SQLite once the 1.5 s lease expires.
    const rerun = await runCliWhenUnlocked(['run', 'online-retail-invoices', '--date', '2010-12-01'], env);
    if (dialect === 'postgres') expect(summaryOf(rerun).outcome).toBe('completed');
    expect(rerun.code).toBe(0);
    expect(summaryOf(rerun).counts.stage).toMatchObject({ records: 143, staged: 143 });
    expect(summaryOf(rerun).counts.upsert).toMatchObject({ inserted: 143, updated: 0, unchanged: 0 });
    expect(await db.knex('job_runs').first()).toMatchObject({ status: 'completed', attempts: 2 });
    expect(Number((await db.knex('stg_online_retail_invoices').count({ n: '*' }))[0]!.n)).toBe(0);

    const clean = await createMigratedTestDatabase(dialect, 'clean run');
    try {
      const cleanEnv = { DATABASE_URL: clean.url, IDEM_DESTINATIONS: env.IDEM_DESTINATIONS };
      expect((await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], cleanEnv)).code).toBe(0);
      const cleanDb = await openTestDatabase(clean.url);
      expect(await readInvoices(db, { stamps: false })).toEqual(await readInvoices(cleanDb, { stamps: false }));
      await cleanDb.close();
    } finally {
      await clean.drop();
    }
  });

  it.each(['mid-upsert', 'after-upsert', 'before-complete'] as const)('a crash at %s is finished by a plain rerun', async (point) => {
    const killed = await runCli(['run', 'online-retail-invoices', '--date', '2010-12-01'], { ...env, IDEM_FAILPOINTS: `${point}=kill` });
    expect(killed.signal).toBe('SIGKILL');
    expect(await readInvoices(db)).toHaveLength(point === 'mid-upsert' ? 0 : 143);
    const rerun = await runCliWhenUnlocked(['run', 'online-retail-invoices', '--date', '2010-12-01'], env);
    expect(rerun.code).toBe(0);
    expect(summaryOf(rerun).counts.upsert).toMatchObject(
      point === 'mid-upsert' ? { inserted: 143, updated: 0 } : { inserted: 0, updated: 0, unchanged: 143 },
    );
    expect(await readInvoices(db)).toHaveLength(143);
    expect(await db.knex('job_runs').first()).toMatchObject({ status: 'completed', attempts: 2 });
  });
});
