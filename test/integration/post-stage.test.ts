import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import type { SandboxRequestLog } from '../../src/sandbox/sandbox-state.ts';
import { describeOneDialect, type TestDatabase } from '../helpers/dialects.ts';
import { editedFixture } from '../helpers/fixtures.ts';
import { runCli, runCliWhenUnlocked, startCli, summaryOf, type CliResult } from '../helpers/run-cli.ts';
import { destinationsEnv, startSandbox } from '../helpers/sandbox.ts';
import { openTestDatabase } from '../helpers/test-db.ts';
import { createMigratedTestDatabase } from '../helpers/migrated-test-database.ts';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';

const DAY = '2010-12-01';
const INVOICES = 143;
const run = (env: Record<string, string>, ...extra: string[]) => runCli(['run', 'online-retail-invoices', '--date', DAY, ...extra], env);

describeOneDialect('the post stage sends every new or changed invoice exactly once', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let sandbox: SandboxApi;
  let onRequest: ((request: SandboxRequestLog) => void) | undefined;
  const envFor = (overrides: Record<string, unknown> = {}) => ({
    DATABASE_URL: testDb.url,
    IDEM_LOCK_LEASE_MS: '1000',
    IDEM_DESTINATIONS: destinationsEnv(sandbox, overrides),
  });

  beforeEach(async (context) => {
    testDb = await createMigratedTestDatabase(dialect, context.task.name);
    onRequest = undefined;
    sandbox = await startSandbox({ onRequest: (request) => onRequest?.(request) });
    db = await openTestDatabase(testDb.url);
  });

  afterEach(async () => {
    await db.close();
    await sandbox.close();
    await testDb.drop();
  });

  const ledger = (reference?: string) => {
    const q = db.knex('post_ledger').orderBy('id');
    return reference ? q.where({ source_reference: reference }) : q;
  };
  const posts = (reference?: string) =>
    sandbox.state.stats().requests.filter((r) => r.method === 'POST' && (reference === undefined || r.reference === reference));
  const everyReferenceOnce = () => Object.values(sandbox.state.stats().byReference).every((n) => n === 1);

  it('posts 143 invoices with 143 requests, and a rerun or a --force rerun sends none', async () => {
    const first = await run(envFor());
    expect(first.code).toBe(0);
    expect(summaryOf(first).counts.post['sandbox-accounting']).toMatchObject({ sent: INVOICES, posted: INVOICES, created: INVOICES, updated: 0, found: 0, failed: 0, review: 0 });
    expect(sandbox.state.postRequests).toBe(INVOICES);
    expect(sandbox.state.records()).toHaveLength(INVOICES);
    expect(everyReferenceOnce()).toBe(true);
    expect(sandbox.state.records().filter((r) => r.type === 'credit_note').map((r) => r.reference)).toHaveLength(6);
    expect(sandbox.state.records().every((r) => (r.type === 'credit_note') === String(r.reference).startsWith('C'))).toBe(true);
    const items = await ledger();
    expect(items.every((i: any) => i.status === 'posted' && i.attempts === 1 && /^inv_\d+$/.test(i.remote_reference))).toBe(true);

    expect((await run(envFor())).code).toBe(0);
    expect(summaryOf(await run(envFor(), '--force')).counts.post['sandbox-accounting']).toMatchObject({ sent: 0 });
    expect(sandbox.state.postRequests).toBe(INVOICES);
    expect(await ledger()).toHaveLength(INVOICES);
  });

  it('updates a changed invoice’s remote record once, with a PUT under a new idempotency key', async () => {
    expect((await run(envFor())).code).toBe(0);
    const [created] = sandbox.state.recordsByReference('536365');
    const dir = editedFixture(DAY, (line, n) => (n === 2 ? line.replace(',6,2010-12-01', ',7,2010-12-01') : line));
    const changed = await run({ ...envFor(), IDEM_SOURCE_DIR: dir }, '--force');
    expect(changed.code).toBe(0);
    expect(summaryOf(changed).counts.upsert).toMatchObject({ updated: 1, enqueued: 1 });
    expect(summaryOf(changed).counts.post['sandbox-accounting']).toMatchObject({ sent: 1, posted: 1, created: 0, updated: 1, found: 0 });
    expect(sandbox.state.postRequests).toBe(INVOICES);
    expect(sandbox.state.updateRequests).toBe(1);
    const put = sandbox.state.stats().requests.filter((r) => r.method === 'PUT');
    expect(put).toMatchObject([{ path: `/invoices/${created!.id}`, reference: '536365' }]);
    // One record, updated in place to the new version.
    const [target] = await db.knex('online_retail_invoices').where({ source_reference: '536365' }).select('row_hash', 'line_count');
    expect(sandbox.state.recordsByReference('536365')).toMatchObject([{ id: created!.id, version: target.row_hash, revision: 2, created_at: created!.created_at }]);
    expect(target.row_hash).not.toBe(created!.version);
    expect(everyReferenceOnce()).toBe(true);
    const items = await ledger('536365');
    expect(items.map((i: any) => [i.status, i.remote_reference])).toEqual([['posted', created!.id], ['posted', created!.id]]);
    expect(put[0]!.idempotencyKey).not.toBe(posts('536365')[0]!.idempotencyKey);
  });

  it('updates a record changed back to earlier content again (A → B → A), under a fresh key', async () => {
    expect((await run(envFor())).code).toBe(0);
    const changed = editedFixture(DAY, (line, n) => (n === 2 ? line.replace(',6,2010-12-01', ',7,2010-12-01') : line));
    expect((await run({ ...envFor(), IDEM_SOURCE_DIR: changed }, '--force')).code).toBe(0);
    const back = await run(envFor(), '--force');
    expect(summaryOf(back).counts.upsert).toMatchObject({ updated: 1, enqueued: 1 });
    const keys = sandbox.state.stats().requests.filter((r) => r.reference === '536365' && r.method !== 'GET').map((r) => `${r.method} ${r.idempotencyKey}`);
    const first = keys[0]!.slice('POST '.length);
    expect(keys).toEqual([`POST ${first}`, expect.stringMatching(/^PUT /), `PUT ${first}#1`]);
    expect(new Set(keys.map((k) => k.split(' ')[1])).size).toBe(3);
    const versions = (await ledger('536365')).map((i: any) => i.row_hash);
    expect(versions[2]).toBe(versions[0]);
    expect(sandbox.state.recordsByReference('536365')).toMatchObject([{ version: versions[0], revision: 3 }]);
    expect(sandbox.state.postRequests).toBe(INVOICES);
    expect(sandbox.state.updateRequests).toBe(2);
  });

  it('counts look-ups apart from sends: a fresh database against a destination holding every invoice finds 143 and sends none', async (context) => {
    const env = (url: string) => ({ ...envFor({ strategy: 'check-before-create' }), DATABASE_URL: url });
    expect((await run(env(testDb.url))).code).toBe(0);
    expect(sandbox.state.postRequests).toBe(INVOICES);
    // The same day into a second, empty database: its ledger knows nothing, the destination holds it all.
    const again = await createMigratedTestDatabase(dialect, `${context.task.name} again`);
    try {
      const result = await run(env(again.url));
      expect(result.code, result.stderr).toBe(0);
      const counts = { sent: 0, posted: INVOICES, created: 0, updated: 0, found: INVOICES, failed: 0, review: 0 };
      expect(summaryOf(result).counts.post['sandbox-accounting']).toMatchObject(counts);
      const line = result.logs.find((l) => l.stage === 'post' && l.destination === 'sandbox-accounting');
      expect(line?.msg).toBe(`posted ${INVOICES} to sandbox-accounting: 0 created, 0 updated, ${INVOICES} found already there (0 sent, 0 failed, 0 in review)`);
      expect(sandbox.state.postRequests).toBe(INVOICES);
      const second = await openTestDatabase(again.url);
      try {
        const jobRun = await second.knex('job_runs').first();
        const stored = typeof jobRun.counts === 'string' ? JSON.parse(jobRun.counts) : jobRun.counts;
        expect(stored.post['sandbox-accounting']).toMatchObject(counts);
      } finally {
        await second.close();
      }
      const status = await runCli(['status', 'online-retail-invoices'], { DATABASE_URL: again.url });
      expect(status.stdout).toContain(`posted ${INVOICES}, sandbox-accounting: 0 created, 0 updated, ${INVOICES} found`);
    } finally {
      await again.drop();
    }
  });

  it('retries 503 twice, then creates one record on the 3rd attempt', async () => {
    sandbox.addFaults([{ kind: 'status', status: 503, count: 2, reference: '536365' }]);
    expect((await run(envFor())).code).toBe(0);
    expect(posts('536365')).toHaveLength(3);
    expect(sandbox.state.countByReference('536365')).toBe(1);
    expect(await ledger('536365')).toMatchObject([{ status: 'posted', attempts: 3 }]);
  });

  it('honours Retry-After: after a 429 with Retry-After: 2 the retry comes no sooner than 2 s later', async () => {
    sandbox.addFaults([{ kind: 'status', status: 429, retryAfterSeconds: 2, count: 1, reference: '536365' }]);
    expect((await run(envFor())).code).toBe(0);
    const [first, second] = posts('536365').map((r) => Date.parse(r.at));
    expect(second! - first!).toBeGreaterThanOrEqual(2000);
    expect(sandbox.state.countByReference('536365')).toBe(1);
  });

  it('stops at a 400 after one attempt, keeps the body, posts the rest, exits 3; retry by command completes it', async () => {
    sandbox.addFaults([{ kind: 'status', status: 400, count: 1, reference: '536365', body: { error: 'validation_failed', details: [{ field: 'total', rule: 'too large' }] } }]);
    const first = await run(envFor());
    expect(first.code).toBe(3);
    expect(summaryOf(first)).toMatchObject({ outcome: 'needs-review', exitCode: 3 });
    expect(posts('536365')).toHaveLength(1);
    expect(sandbox.state.records()).toHaveLength(INVOICES - 1);
    const [item] = await ledger('536365');
    expect(item).toMatchObject({ status: 'failed', failure_kind: 'terminal', attempts: 1, last_http_status: 400 });
    expect(item.last_error).toContain('"rule":"too large"');
    expect(await db.knex('job_runs').first()).toMatchObject({ status: 'needs_review' });

    const review = await runCli(['review', 'online-retail-invoices'], envFor());
    expect(review.code).toBe(0);
    expect(review.stdout).toMatch(/sandbox-accounting\s+536365\s+failed \(terminal\)\s+1\s+2010-12-01/);
    expect(review.stdout).toContain('idem review online-retail-invoices --retry <reference>');

    const retried = await runCli(['review', 'online-retail-invoices', '--retry', '536365'], envFor());
    expect(retried.stdout).toBe('536365 will be sent again; now run: idem run online-retail-invoices --date 2010-12-01\n');
    const rerun = await run(envFor());
    expect(rerun.code).toBe(0);
    expect(sandbox.state.records()).toHaveLength(INVOICES);
    expect(everyReferenceOnce()).toBe(true);
    expect(await db.knex('job_runs').first()).toMatchObject({ status: 'completed', attempts: 2 });
  });

  describe('accept, commit, then hang past the client timeout', () => {
    const hang = () => sandbox.addFaults([{ kind: 'hang-after-commit', count: 1, reference: '536365' }]);
    // Only the hung request may time out: at 400 ms, another invoice's answer on a loaded CI
    // machine once did too, and went to review under mark-before-send with it. The hung one
    // never answers, so the bound costs each test its own length once.
    const timeouts = { http: { headersTimeoutMs: 2000 } };

    it('idempotency-key: the retry with the same key gets the stored response: one record', async () => {
      hang();
      expect((await run(envFor(timeouts))).code).toBe(0);
      const sent = posts('536365');
      expect(sent).toHaveLength(2);
      expect(sent[0]!.idempotencyKey).toBe(sent[1]!.idempotencyKey);
      expect(sandbox.state.countByReference('536365')).toBe(1);
      expect(await ledger('536365')).toMatchObject([{ status: 'posted', attempts: 2, remote_reference: sandbox.state.recordsByReference('536365')[0]!.id }]);
    });

    it('check-before-create: the retry looks up first and finds it: one record', async () => {
      sandbox.configure({ idempotencyKeys: false });
      hang();
      const result = await run(envFor({ ...timeouts, strategy: 'check-before-create' }));
      expect(result.code).toBe(0);
      expect(summaryOf(result).counts.post['sandbox-accounting']).toMatchObject({ posted: INVOICES, found: 1 });
      expect(posts('536365')).toHaveLength(1);
      expect(sandbox.state.countByReference('536365')).toBe(1);
      expect(everyReferenceOnce()).toBe(true);
    });

    it('mark-before-send: the item goes to review, never resent; resolving it by command completes the run', async () => {
      sandbox.configure({ idempotencyKeys: false });
      hang();
      const env = envFor({ ...timeouts, strategy: 'mark-before-send' });
      const first = await run(env);
      expect(first.code).toBe(3);
      expect(posts('536365')).toHaveLength(1);
      expect(await ledger('536365')).toMatchObject([{ status: 'review', attempts: 1 }]);
      expect((await run(env)).code).toBe(3);
      expect(posts('536365')).toHaveLength(1);

      const remote = sandbox.state.recordsByReference('536365')[0]!.id;
      const resolved = await runCli(['review', 'online-retail-invoices', '--mark-posted', '536365', '--remote-ref', remote], env);
      expect(resolved.stdout).toBe(`536365 marked posted at sandbox-accounting as ${remote}; run 2010-12-01 is now completed\n`);
      expect(await db.knex('job_runs').first()).toMatchObject({ status: 'completed' });
      expect(summaryOf(await run(env)).outcome).toBe('noop');
      expect(sandbox.state.records()).toHaveLength(INVOICES);
      expect(everyReferenceOnce()).toBe(true);
    });
  });

  describe('SIGKILL while posting, then a rerun', () => {
    async function killAfter(n: number, env: Record<string, string>): Promise<CliResult> {
      sandbox.configure({ latencyMs: 5 });
      const child = startCli(['run', 'online-retail-invoices', '--date', DAY], env);
      let seen = 0;
      onRequest = (request) => {
        if (request.method === 'POST' && ++seen === n) child.child.kill('SIGKILL');
      };
      const killed = await child.done;
      onRequest = undefined;
      sandbox.configure({ latencyMs: 0 });
      return killed;
    }

    it.each([1, 40, 142])('idempotency-key, killed at request %i: every invoice exactly once, run completed', async (n) => {
      const env = envFor();
      expect((await killAfter(n, env)).signal).toBe('SIGKILL');
      const rerun = await runCliWhenUnlocked(['run', 'online-retail-invoices', '--date', DAY], env);
      expect(rerun.code).toBe(0);
      expect(sandbox.state.records()).toHaveLength(INVOICES);
      expect(everyReferenceOnce()).toBe(true);
      expect(await db.knex('job_runs').first()).toMatchObject({ status: 'completed', attempts: 2 });
    });

    it('mark-before-send, killed at request 40: interrupted items go to review, the rest exactly once', async () => {
      sandbox.configure({ idempotencyKeys: false });
      const env = envFor({ strategy: 'mark-before-send' });
      expect((await killAfter(40, env)).signal).toBe('SIGKILL');
      const rerun = await runCliWhenUnlocked(['run', 'online-retail-invoices', '--date', DAY], env);
      expect(rerun.code).toBe(3);
      const inReview = (await ledger()).filter((i: any) => i.status === 'review');
      expect(inReview.length).toBeGreaterThan(0);
      expect(inReview.length).toBeLessThanOrEqual(16);
      expect(Object.values(sandbox.state.stats().byReference).every((count) => count <= 1)).toBe(true);
      // The operator checks each at the destination, as `idem review` says.
      for (const item of inReview) {
        const there = sandbox.state.recordsByReference(item.source_reference)[0];
        const args = there ? ['--mark-posted', item.source_reference, '--remote-ref', there.id] : ['--retry', item.source_reference];
        expect((await runCli(['review', 'online-retail-invoices', ...args], env)).code).toBe(0);
      }
      const last = await run(env);
      // Completed by the last --mark-posted (a no-op now), or by this run once it resent the retried ones.
      expect(last.code).toBe(0);
      expect(await db.knex('job_runs').first()).toMatchObject({ status: 'completed' });
      expect(sandbox.state.records()).toHaveLength(INVOICES);
      expect(everyReferenceOnce()).toBe(true);
    });
  });
});

describeOneDialect('idem run --force-reconcile', (dialect) => {
  let project: ExampleProject;
  let sandbox: SandboxApi;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    project = await setUpExampleProject(dialect, context.task.name);
    ({ sandbox, env } = project);
  });

  afterEach(() => project.close());

  it('asks the destination about every posted record and re-creates only the one missing there', async () => {
    expect((await run(env)).code).toBe(0);
    const lost = sandbox.state.recordsByReference('536370')[0]!;
    expect(sandbox.state.deleteRecord(lost.id)).toBe(true);
    const posts = sandbox.state.postRequests;

    const result = await run(env, '--force-reconcile');
    expect(result.code).toBe(0);
    expect(summaryOf(result).counts.reconcile['sandbox-accounting']).toEqual({ checked: INVOICES, present: INVOICES - 1, missing: 1, different: 0, duplicated: 0 });
    expect(sandbox.state.postRequests).toBe(posts + 1);
    expect(sandbox.state.records()).toHaveLength(INVOICES);
    expect(Object.values(sandbox.state.stats().byReference).every((n) => n === 1)).toBe(true);

    const again = await run(env, '--force-reconcile');
    expect(summaryOf(again).counts.reconcile['sandbox-accounting']).toMatchObject({ present: INVOICES, missing: 0 });
    expect(sandbox.state.postRequests).toBe(posts + 1);
  });
});
