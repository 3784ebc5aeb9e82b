import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open-database.ts';
import { column } from '../../src/column/column-type.ts';
import { scratchDatabases } from '../../src/prove/scratch-databases.ts';
import { ADMIN_URLS, describeEachDialect, DIALECTS, type TestDialect } from '../helpers/dialects.ts';
import { PROJECT_DIR, runCli } from '../helpers/run-cli.ts';
import { proveTable } from '../helpers/prove-table.ts';
import { PRODUCTS_PIPELINE, sourcesEnv, startSandbox } from '../helpers/sandbox.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';

const BROKEN_PROJECT = path.join(PROJECT_DIR, 'test', 'fixtures', 'broken-project');
// A full proof runs the CLI about 80 times (the create path, its fine print and the update path);
// on a busy 2-CPU machine with four proofs at once that takes several minutes.
const PROOF_TIMEOUT_MS = 900_000;

const FAILPOINT_CHECKS = ['before-stage', 'mid-stage', 'after-extract', 'after-stage', 'mid-upsert', 'after-upsert', 'before-post', 'before-complete'].map((p) => `kill at ${p}, rerun`);

// prove's default scratch databases are SQLite files: it runs with the SQLite part of the suite.
describe.skipIf(!DIALECTS.includes('sqlite'))('sqlite: idem prove (on temp SQLite databases)', () => {
  it('refuses to run without a run key (exit 2)', async () => {
    const result = await runCli(['prove', 'online-retail-invoices']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('missing required flag --date');
  });

  it('refuses an --only that matches no check (a typo), naming it, instead of passing a proof of nothing but the clean runs (exit 2)', async () => {
    const result = await runCli(['prove', 'online-retail-invoices', '--date', '2010-12-01', '--seed', '1', '--only', 'paused past', '--only', 'pasued']);
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toMatch(/--only "pasued" matches no check of this proof; its checks: clean run; second run is a no-op; request bodies; --force rerun; update: one value changed, sent once; kill at before-stage, rerun; .*; paused past its lease at POST 48 of 143, another run;/);
    expect(result.stdout).toBe('');
  });

  it.concurrent('online-retail-invoices --date 2010-12-01 passes every check', { timeout: PROOF_TIMEOUT_MS }, async () => {
    const result = await runCli(['prove', 'online-retail-invoices', '--date', '2010-12-01', '--seed', '20101201']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toContain('seed 20101201');
    const table = proveTable(result.stdout);
    expect(table.get('clean run')).toEqual(['pass', 'rows 143, remote 143 once, requests 143']);
    expect(table.get('second run is a no-op')).toEqual(['pass', 'noop, rows 143 = 143, requests 0']);
    expect(table.get('request bodies')).toEqual(['pass', "bodies 286 (create and update), no undefined field, valid for idem's sandbox"]);
    for (const check of FAILPOINT_CHECKS) expect([check, ...table.get(check)!]).toEqual([check, 'pass', 'rows 143 = 143, remote 143 once, attempts 2, staging 0, lock free']);
    const postKills = [...table.keys()].filter((check) => /^kill after POST \d+ of 143, rerun$/.test(check));
    expect(postKills).toHaveLength(3);
    for (const check of postKills) expect(table.get(check)).toEqual(['pass', 'rows 143 = 143, remote 143 once, attempts 2, staging 0, lock free']);
    expect(table.get('two runs at once')).toEqual(['pass', 'exit 0 + 75, rows 143 = 143, remote 143 once, attempts 1, staging 0, lock free']);
    // The stopped run resumes after the other completed: its lease ran out, it sends nothing (exit 1).
    expect(table.get('paused past its lease at POST 48 of 143, another run')).toEqual(['pass', 'exit 1 + 0, rows 143 = 143, remote 143 once, attempts 2, staging 0, lock free']);
    expect(table.get('gateway 504 after apply')).toEqual(['pass', '504 after apply: exit 0, rows 143 = 143, remote 143 once, attempts 1, staging 0, lock free']);
    // Issue 28 §7: what an independent harness found, each a check of its own.
    expect(table.get('409 on the first write')).toEqual(['pass', '409 on the first write: exit 0, rows 143 = 143, remote 143 once, attempts 1, staging 0, lock free']);
    expect(table.get('500 on the first write')).toEqual(['pass', '500 on the first write: exit 0, rows 143 = 143, remote 143 once, attempts 1, staging 0, lock free']);
    // The resend meets the key still in flight (409, retried): created once.
    expect(table.get('applied after the settle delay')).toEqual(['pass', 'applied 2000 ms late: exit 0, rows 143 = 143, remote 143 once, attempts 1, staging 0, lock free']);
    // SQLite: the lease row goes; the run's next proof finds it gone.
    expect(table.get('lock session killed at POST 48 of 143, rerun')).toEqual(['pass', expect.stringMatching(/^\d+ write\(s\) after the loss \(at most 16\), exit 1, rows 143 = 143, remote 143 once, attempts 2, staging 0, lock free$/)]);
    // The worker may be stopped inside a write transaction: on SQLite the run then meets the
    // database locked through every retry, exits 75, and its rerun (as a scheduler's) completes.
    expect(table.get('idem work paused past its claims, the run takes over')).toEqual([
      'pass',
      expect.stringMatching(/^(exit 0 \+ worker 0, rows 143 = 143, remote 143 once, attempts 1|exit 75 \+ worker \d+, rerun exit 0, rows 143 = 143, remote 143 once, attempts 2), staging 0, lock free$/),
    ]);
    expect(table.get('idempotency keys honoured by the API')).toEqual(['pass', 'sandbox-accounting: repeated keys answered with the first answer']);
    expect(table.get('--force rerun')).toEqual(['pass', 'inserted 0, updated 0, requests 0, rows 143 = 143']);
    // The update path: a copy of the day's file with one value changed, run with --force: one PUT.
    expect(table.get('update: one value changed, sent once')).toEqual([
      'pass',
      'first record, Country: "United Kingdom" → "United Kingdom (changed)", inserted 0, updated 1, rows changed 1 (online-retail 536365), remote 143 once, updates 536365 ×1 once, requests 1, again: updated 0, requests 0',
    ]);
    for (const check of FAILPOINT_CHECKS.map((c) => `update: ${c}`)) {
      expect([check, ...table.get(check)!]).toEqual([check, 'pass', 'rows 143 = 143, remote 143 once, attempts 2, staging 0, lock free, updates 536365 ×1 once']);
    }
    expect(table.get('update: kill as the update reaches a destination, rerun')).toEqual(['pass', 'rows 143 = 143, remote 143 once, attempts 2, staging 0, lock free, updates 536365 ×1 once']);
    expect(table.get('update: two runs at once')).toEqual(['pass', 'exit 0 + 75, rows 143 = 143, remote 143 once, attempts 1, staging 0, lock free, updates 536365 ×1 once']);
    expect(table.get('update: paused past its lease at the update, another run')).toEqual(['pass', 'exit 1 + 0, rows 143 = 143, remote 143 once, attempts 2, staging 0, lock free, updates 536365 ×1 once']);
    expect(table.get('update: gateway 504 after the update applied')).toEqual(['pass', '504 after apply: exit 0, rows 143 = 143, remote 143 once, attempts 1, staging 0, lock free, updates 536365 ×1 once']);
    expect(table.size).toBe(37);
    expect(result.stdout).toMatch(/\npassed: 37 checks\n$/);
  });

  // The deployment overrides the strategy; the stand-ins honour no key the run does not send. The
  // checks whose outcome depends on the strategy: those that crash, stop or fail a write mid-post.
  const STRATEGY_CHECKS = ['kill after POST', 'paused', '504', '409', '500', 'settle', 'lock session', 'update: kill as'];
  it.concurrent.each(['check-before-create', 'mark-before-send'])('online-retail-invoices under %s passes the checks of the post stage, the pauses and the 504 included', { timeout: PROOF_TIMEOUT_MS }, async (strategy) => {
    // Short timeouts, settle delay and takeover margin: under check-before-create every takeover
    // waits them out (30 s with the defaults, 4 s here).
    const destinations = JSON.stringify({ 'sandbox-accounting': { url: 'http://127.0.0.1:9', strategy, settleDelayMs: 500, http: { connectTimeoutMs: 1000, headersTimeoutMs: 2000 } } });
    const result = await runCli(['prove', 'online-retail-invoices', '--date', '2010-12-01', '--seed', '20101201', ...STRATEGY_CHECKS.flatMap((c) => ['--only', c])], {
      IDEM_DESTINATIONS: destinations,
      IDEM_TAKEOVER_GRACE_MS: '500',
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const table = proveTable(result.stdout);
    // The clean runs, then only the checks asked for.
    expect([...table.keys()].filter((check) => !STRATEGY_CHECKS.some((c) => check.includes(c)))).toEqual(['clean run', 'second run is a no-op', 'request bodies', '--force rerun', 'update: one value changed, sent once']);
    expect([...table].filter(([, [outcome]]) => outcome !== 'pass')).toEqual([]);
    expect([...table.keys()].filter((check) => /^kill after POST \d+ of 143, rerun$/.test(check))).toHaveLength(3);
    // mark-before-send: the 504 left the item in review, and it was there when the operator looked.
    expect(table.get('gateway 504 after apply')).toEqual([
      'pass',
      `504 after apply: exit ${strategy === 'mark-before-send' ? '3, review: 1 marked posted, 0 retried' : '0'}, rows 143 = 143, remote 143 once, attempts 1, staging 0, lock free`,
    ]);
    expect(table.get('update: gateway 504 after the update applied')?.[1]).toMatch(/, updates 536365 ×1 once$/);
    if (strategy === 'check-before-create') {
      // Past the settle delay the record is created twice (the strategy's bound): found and reported,
      // not silent. On a loaded machine the look-up may come after the late apply, and find it: once.
      expect(table.get('applied after the settle delay')).toEqual([
        'pass',
        expect.stringMatching(/^applied 2000 ms late: exit 0, (remote 144 ≠ 143, 1 duplicated \(\d+ ×2\): detected, --force-reconcile exit 3, 1 in review as duplicates at the destination|rows 143 = 143, remote 143 once, attempts 1, staging 0, lock free)$/),
      ]);
    }
    expect(result.stdout).toMatch(new RegExp(`\\npassed: ${table.size} checks\\n$`));
  });

  it.concurrent('a pipeline whose idempotency key comes from the clock fails, caught by the kills during post', { timeout: PROOF_TIMEOUT_MS }, async () => {
    // The checks that interrupt the post stage, and two that do not, for contrast.
    const only = ['kill after POST', 'paused past its lease', 'lock session', 'update: kill as', 'kill at before-post', '504 after apply'];
    const result = await runCli(['prove', 'broken-invoices', '--date', '2010-12-01', '--seed', '20101201', ...only.flatMap((c) => ['--only', c])], { IDEM_PROJECT_DIR: BROKEN_PROJECT });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const table = proveTable(result.stdout);
    // Crashes before the post stage, and runs that are not interrupted mid-post, cannot see it.
    for (const check of ['clean run', 'second run is a no-op', 'request bodies', 'kill at before-post, rerun', 'gateway 504 after apply', '--force rerun']) {
      expect([check, table.get(check)?.[0]]).toEqual([check, 'pass']);
    }
    const postKills = [...table.entries()].filter(([check]) => /^kill after POST \d+ of 143, rerun$/.test(check));
    expect(postKills).toHaveLength(3);
    for (const [, [outcome, counts]] of postKills) {
      expect(outcome).toBe('fail');
      // The record whose POST reached the destination just before the kill was created again by the rerun.
      expect(counts).toMatch(/^rows 143 = 143, remote \d+ ≠ 143, \d+ duplicated \(\d+ ×2/);
    }
    // A run stopped past its lease is taken over the same way: the other run resends what it had in flight.
    expect(table.get('paused past its lease at POST 48 of 143, another run')?.[0]).toBe('fail');
    // The same for an update: the rerun's new key applies the update a second time.
    expect(table.get('update: kill as the update reaches a destination, rerun')).toEqual(['fail', 'rows 143 = 143, remote 143 once, attempts 2, staging 0, lock free, updates 536365 ×2, expected 536365 ×1']);
    expect(table.get('update: paused past its lease at the update, another run')?.[0]).toBe('fail');
    // So is a run whose lock session is killed mid-post.
    expect(table.get('lock session killed at POST 48 of 143, rerun')?.[0]).toBe('fail');
    expect(table.size).toBe(15);
    expect(result.stdout).toMatch(/\nFAILED: 7 of 15 checks\n$/);
  });

  it.concurrent('a failpoint the run never reaches fails its check: a catalogue API emptied after the clean run', { timeout: PROOF_TIMEOUT_MS }, async () => {
    // The products pipeline reads the API's current catalogue. Nine products fit one page, so the
    // clean run asks once; every later run (the --force rerun, each case) finds none, so no
    // staging batch ever fills and mid-stage is never reached. The proof cannot have tried that crash.
    const catalogue = Array.from({ length: 9 }, (_, i) => ({ stock_code: `P${i + 1}`, description: `ITEM ${i + 1}`, unit_price: `${i + 1}.50` }));
    let pages = 0;
    const sandbox: SandboxApi = await startSandbox({
      products: catalogue,
      onRequest: (request) => {
        if (request.path === '/products' && ++pages === 2) sandbox.state.setProducts([]);
      },
    });
    try {
      const result = await runCli(['prove', PRODUCTS_PIPELINE, '--date', '2011-12-09', '--seed', '1'], { IDEM_SOURCES: sourcesEnv(sandbox) });
      expect(result.code, result.stdout + result.stderr).toBe(1);
      const table = proveTable(result.stdout);
      expect(table.get('clean run')).toEqual(['pass', 'rows 9']);
      expect(table.get('kill at mid-stage, rerun')).toEqual([
        'fail',
        'mid-stage not reached: the run ended with exit 0 before it, so a crash there was never tried (it staged 0 records, the clean run 9)',
      ]);
      // Every other kill is reached, and its rerun finds the rows of the emptied catalogue missing.
      for (const check of FAILPOINT_CHECKS.filter((c) => c !== 'kill at mid-stage, rerun')) {
        expect([check, ...table.get(check)!]).toEqual([check, 'fail', expect.stringMatching(/^rows 0 ≠ 9, 9 missing \(online-retail P1, /)]);
      }
      // Only a check that does not apply to the pipeline is a skip.
      expect([...table].filter(([, [outcome]]) => outcome === 'skip')).toEqual([
        ['kill during post, rerun', ['skip', 'no destinations']],
        ['paused past its lease during post', ['skip', 'no destinations']],
        ['gateway 504 after apply', ['skip', 'no destinations']],
        ...['409 on the first write', '500 on the first write', 'applied after the settle delay', 'lock session killed during post, rerun', 'idem work paused past its claims', 'idempotency keys honoured by the API'].map(
          (check) => [check, ['skip', 'no destinations']],
        ),
        // Read where IDEM_SOURCES points (no source() in a stand-in module): it cannot be served changed.
        ['update: one value changed, sent once', ['skip', 'the update path was not proved: the source is not served by stand-in handlers (describe it in source() of stand-ins/<pipeline>.ts)']],
      ]);
    } finally {
      await sandbox.close();
    }
  });
});

/** Whether the database of a scratch URL still exists, asked of the server (or the file system). */
async function exists(dialect: TestDialect, url: string): Promise<boolean> {
  if (dialect === 'sqlite') return existsSync(url.slice('sqlite:'.length));
  const name = /\/(idem_prove_[0-9a-f]+)/.exec(url)![1]!;
  const admin = await openDatabase({ databaseUrl: ADMIN_URLS[dialect]!, projectDir: PROJECT_DIR });
  try {
    const sql = {
      postgres: 'select datname from pg_database where datname = ?',
      mysql: 'select schema_name from information_schema.schemata where schema_name = ?',
      mssql: 'select name from sys.databases where name = ?',
    }[dialect];
    const result = (await admin.knex.raw(sql, [name])) as unknown;
    const rows = dialect === 'postgres' ? (result as { rows: unknown[] }).rows : dialect === 'mysql' ? (result as unknown[][])[0]! : (result as unknown[]);
    return rows.length > 0;
  } finally {
    await admin.close();
  }
}

describeEachDialect("idem prove's scratch databases", (dialect) => {
  it('are fresh and migrated, apart from the database given, and dropped afterwards', async () => {
    const databases = scratchDatabases(PROJECT_DIR, ADMIN_URLS[dialect]);
    const [a, b] = [await databases.create(), await databases.create()];
    try {
      expect(a.url).not.toBe(b.url);
      if (dialect === 'sqlite') expect(a.url).toMatch(/^sqlite:.*\/idem_prove_[0-9a-f]{12}\/idem\.sqlite3$/);
      else expect(a.url).toMatch(/\/idem_prove_[0-9a-f]{12}(\?|$)/);
      const db = await openDatabase({ databaseUrl: a.url, projectDir: PROJECT_DIR });
      try {
        const at = db.adapter.toDriverValue(column.instant(), '2011-01-01T00:00:00.000Z');
        await db.knex('job_runs').insert({ job_name: 'x', run_key: 'y', status: 'started', attempts: 1, triggered_by: 't', started_at: at, created_at: at, updated_at: at });
        expect(await db.knex('online_retail_invoices').select('id')).toEqual([]);
      } finally {
        await db.close();
      }
      // Each is its own: what one case writes, the next never sees.
      const other = await openDatabase({ databaseUrl: b.url, projectDir: PROJECT_DIR });
      try {
        expect(await other.knex('job_runs').select('id')).toEqual([]);
      } finally {
        await other.close();
      }
    } finally {
      await a.drop();
      await a.drop();
      await b.drop();
      await databases.dispose();
    }
    expect([await exists(dialect, a.url), await exists(dialect, b.url)]).toEqual([false, false]);
  });
});
