import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';

// Issue 28 §7: a create the destination applies after the settle delay is created twice under
// check-before-create (its documented bound), and nothing said so. Now whenever a look-up (before
// a send, or --force-reconcile) finds more than one record for a reference, the item goes to
// review with every remote reference, and idem status counts it.
const REF = '536365';
const OTHER = '536366';
const DAYS = ['2010-12-01', '2010-12-02'];

/**
 * Two days of two invoices: REF and OTHER as on 2010-12-01 (A), then REF with one quantity changed
 * (B, an update of its remote record) and OTHER unchanged. @returns the source directory.
 */
function twoDays(): string {
  const lines = readFileSync(path.join(PROJECT_DIR, 'fixtures/online-retail/2010-12-01.csv'), 'utf8').split('\n');
  const a = [lines[0]!, ...lines.filter((line) => line.startsWith(`${REF},`) || line.startsWith(`${OTHER},`))];
  const b = a.map((line) => (line.startsWith(`${REF},`) ? line.replace(',6,2010-12-01', ',7,2010-12-01') : line));
  expect(b).not.toEqual(a);
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-dups-'));
  [a, b].forEach((content, i) => writeFileSync(path.join(dir, `${DAYS[i]}.csv`), `${content.join('\n')}\n`));
  return dir;
}

/** Polls the destination until `check` holds (every 20 ms, at most 10 s). */
async function waitUntil(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

/**
 * Runs the first day under check-before-create against a destination without idempotency keys
 * that applies REF's first create 1.5 s after it came: the client gave up after 300 ms, waited
 * the settle delay (200 ms), found nothing and created it again. The documented bound: the run
 * ends 0 and, once the late create lands, the destination holds REF twice.
 */
async function createTwiceBeyondTheSettleDelay(world: FaultWorld, dir: string): Promise<Record<string, string>> {
  world.sandbox.configure({ idempotencyKeys: false });
  world.sandbox.addFaults([{ kind: 'late-commit', ms: 1500, reference: REF }]);
  const env = { ...world.env({ strategy: 'check-before-create', settleDelayMs: 200, http: { headersTimeoutMs: 300 } }), IDEM_SOURCE_DIR: dir };
  const first = await runCli(['run', pipeline.name, '--date', DAYS[0]!], env);
  expect(first.code, first.stderr).toBe(0);
  await waitUntil('the late create to land', () => world.sandbox.state.countByReference(REF) === 2);
  return env;
}

/** What `idem status` says about duplicates at the destination, as text and as JSON. */
async function statusOf(env: Record<string, string>) {
  const text = await runCli(['status', pipeline.name], env);
  const json = await runCli(['status', pipeline.name, '--json'], env);
  return { text: text.stdout, operator: (JSON.parse(json.stdout) as { itemsNeedingOperator: Record<string, unknown> }).itemsNeedingOperator[pipeline.name] };
}

describeEachDialect('duplicates at the destination are recorded, sent to review and counted (issue 28 §7)', (dialect) => {
  it.concurrent('the look-up before an update finds the record twice: nothing is sent, the item goes to review with both remote ids, exit 3, idem status counts it', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    const dir = twoDays();
    try {
      const env = await createTwiceBeyondTheSettleDelay(world, dir);
      const ids = world.sandbox.state.recordsByReference(REF).map((r) => r.id);
      expect(ids).toHaveLength(2);

      const second = await runCli(['run', pipeline.name, '--date', DAYS[1]!], env);
      expect(second.code, second.stderr).toBe(3);
      expect(summaryOf(second)).toMatchObject({ outcome: 'needs-review', exitCode: 3 });
      // Nothing was sent for REF: no update of either record.
      expect(world.sandbox.state.stats().updateRequests).toBe(0);
      expect(world.sandbox.state.recordsByReference(REF).map((r) => r.revision)).toEqual([1, 1]);
      const [item] = await world.db.knex('post_ledger').where({ source_reference: REF, run_key: DAYS[1] }).select('status', 'remote_duplicates', 'last_error');
      expect(item.status).toBe('review');
      expect(JSON.parse(item.remote_duplicates)).toEqual(ids);
      expect(item.last_error).toContain(`the destination holds 2 records for ${REF}: ${ids.join(', ')}`);
      expect(await world.db.knex('job_runs').where({ run_key: DAYS[1] }).select('status')).toEqual([{ status: 'needs_review' }]);

      const status = await statusOf(env);
      expect(status.operator).toEqual({ review: 1, failed: 0, duplicatesAtDestination: 1 });
      expect(status.text).toContain(`${pipeline.name}: 1 item(s) in review (1 of them duplicates at the destination: records held more than once there), 0 failed`);
      // idem review shows both ids and what to do.
      const review = await runCli(['review', pipeline.name], env);
      expect(review.stdout).toContain(ids[1]!);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await world.close();
    }
  });

  it.concurrent('--force-reconcile finds the record twice: the posted item goes to review with both remote ids, exit 3, idem status counts it; resolved by the operator, the run completes', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    const dir = twoDays();
    try {
      const env = await createTwiceBeyondTheSettleDelay(world, dir);
      const ids = world.sandbox.state.recordsByReference(REF).map((r) => r.id);

      const reconciled = await runCli(['run', pipeline.name, '--date', DAYS[0]!, '--force-reconcile'], env);
      expect(reconciled.code, reconciled.stderr).toBe(3);
      expect(summaryOf(reconciled).counts.reconcile['sandbox-accounting']).toEqual({ checked: 2, present: 1, missing: 0, different: 0, duplicated: 1 });
      const [item] = await world.db.knex('post_ledger').where({ source_reference: REF }).select('status', 'remote_duplicates');
      expect(item.status).toBe('review');
      expect(JSON.parse(item.remote_duplicates)).toEqual(ids);
      expect(await world.db.knex('job_runs').select('status')).toEqual([{ status: 'needs_review' }]);
      expect((await statusOf(env)).operator).toEqual({ review: 1, failed: 0, duplicatesAtDestination: 1 });

      // The operator removes the late one (created last) at the destination and confirms the one kept.
      expect(world.sandbox.state.deleteRecord(ids[1]!)).toBe(true);
      const resolved = await runCli(['review', pipeline.name, '--mark-posted', REF, '--remote-ref', ids[0]!], env);
      expect(resolved.code, resolved.stderr).toBe(0);
      expect(await world.db.knex('post_ledger').where({ source_reference: REF }).select('status', 'remote_reference', 'remote_duplicates')).toEqual([{ status: 'posted', remote_reference: ids[0], remote_duplicates: null }]);
      expect(await world.db.knex('job_runs').select('status')).toEqual([{ status: 'completed' }]);
      expect((await statusOf(env)).operator).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await world.close();
    }
  });
});
