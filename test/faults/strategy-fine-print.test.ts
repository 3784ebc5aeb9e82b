import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PostStrategy } from '../../src/destination/post-strategy.ts';
import type { SandboxFault } from '../../src/sandbox/sandbox-fault.ts';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeOneDialect, type TestDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { PROJECT_DIR, runCli, runCliWhenUnlocked, startCli, summaryOf } from '../helpers/run-cli.ts';

const DAY = '2010-12-01';
const INVOICES = 143;
const REF = '536365';
const RUN = ['run', pipeline.name, '--date', DAY];
const STRATEGIES: PostStrategy[] = ['idempotency-key', 'check-before-create', 'mark-before-send'];

/** A world whose destination uses `strategy`, keys honoured only under idempotency-key, with `faults` queued. */
async function openStrategyWorld(dialect: TestDialect, strategy: PostStrategy, identity: string, faults: SandboxFault[] = [], http: Record<string, unknown> = {}) {
  const world: FaultWorld = await openFaultWorld(dialect, identity);
  world.sandbox.configure({ idempotencyKeys: strategy === 'idempotency-key' });
  world.sandbox.addFaults(faults);
  return { world, env: world.env({ strategy, http }) };
}

const posts = (world: FaultWorld, reference: string) => world.sandbox.state.stats().requests.filter((r) => r.method === 'POST' && r.reference === reference);
const ledger = (world: FaultWorld, reference: string) => world.db.knex('post_ledger').where({ source_reference: reference }).select('status', 'failure_kind', 'attempts');

describeOneDialect("each strategy's fine print", (dialect) => {
  describe.each(STRATEGIES)('%s', (strategy) => {
    it.concurrent('a gateway answers 504 after the destination applied the POST: never created twice', async ({ task }) => {
      const { world, env } = await openStrategyWorld(dialect, strategy, task.name, [{ kind: 'status-after-commit', status: 504, reference: REF }]);
      try {
        const result = await runCli(RUN, env);
        expect(world.sandbox.state.countByReference(REF)).toBe(1);
        expect(world.sandbox.state.records()).toHaveLength(INVOICES);
        if (strategy === 'mark-before-send') {
          // A 504 does not prove the request was not applied: the operator checks, nothing is resent.
          expect(result.code, result.stdout + result.stderr).toBe(3);
          expect(posts(world, REF)).toHaveLength(1);
          expect(await ledger(world, REF)).toMatchObject([{ status: 'review', attempts: 1 }]);
        } else {
          expect(result.code, result.stdout + result.stderr).toBe(0);
          expect(await ledger(world, REF)).toMatchObject([{ status: 'posted', attempts: 2 }]);
        }
      } finally {
        await world.close();
      }
    });

    // idempotency-key: a resend while the first is in flight meets a 409 (issue 14's in-flight rule).
    if (strategy !== 'idempotency-key') {
      it.concurrent('the destination applies a POST after its timeout fired: never created twice', async ({ task, expect }) => {
        // Applied 2.5 s after it arrived, 1.5 s after the client's headers timeout: within the
        // destination's settle delay (the example declares none, so the default, 5 s).
        const { world, env } = await openStrategyWorld(dialect, strategy, task.name, [{ kind: 'late-commit', ms: 2500, reference: REF }], { headersTimeoutMs: 1000 });
        try {
          const result = await runCli(RUN, env);
          await expect.poll(() => world.sandbox.state.countByReference(REF), { timeout: 5000 }).toBe(1);
          if (strategy === 'check-before-create') {
            // The retry waited out the settle delay, then its look-up found the late record.
            expect(result.code, result.stdout + result.stderr).toBe(0);
            expect(posts(world, REF)).toHaveLength(1);
            expect(summaryOf(result).counts.post['sandbox-accounting']).toMatchObject({ found: 1, posted: INVOICES });
          } else {
            expect(result.code, result.stdout + result.stderr).toBe(3);
            expect(await ledger(world, REF)).toMatchObject([{ status: 'review', attempts: 1 }]);
          }
        } finally {
          await world.close();
        }
      });
    }

    it.concurrent('a record changed A → B → A ends with A in the destination’s one record', async ({ task }) => {
      const { world, env } = await openStrategyWorld(dialect, strategy, task.name);
      const dir = mkdtempSync(path.join(tmpdir(), 'idem-aba-'));
      try {
        // Three days of one invoice: its first content (A), one quantity changed (B), A again.
        const lines = readFileSync(path.join(PROJECT_DIR, 'fixtures/online-retail/2010-12-01.csv'), 'utf8').split('\n');
        const a = [lines[0], ...lines.filter((line) => line.startsWith(`${REF},`))];
        const b = a.map((line, i) => (i === 1 ? line.replace(',6,2010-12-01', ',7,2010-12-01') : line));
        expect(b[1]).not.toBe(a[1]);
        const days = ['2010-12-01', '2010-12-02', '2010-12-03'];
        [a, b, a].forEach((content, i) => writeFileSync(path.join(dir, `${days[i]}.csv`), `${content.join('\n')}\n`));
        for (const day of days) {
          const result = await runCli(['run', pipeline.name, '--date', day], { ...env, IDEM_SOURCE_DIR: dir });
          expect(result.code, result.stdout + result.stderr).toBe(0);
        }
        const records = world.sandbox.state.recordsByReference(REF);
        const versions = (await world.db.knex('post_ledger').where({ source_reference: REF }).orderBy('id').select('row_hash')).map((r: { row_hash: string }) => r.row_hash);
        expect(versions).toHaveLength(3);
        expect(versions[2]).toBe(versions[0]);
        // The destination's one record holds the source's current content: created, then updated twice.
        expect(records.map((r) => [r.version, r.revision])).toEqual([[versions[0], 3]]);
        expect(await world.db.knex('post_ledger').where({ source_reference: REF }).orderBy('id').pluck('status')).toEqual(['posted', 'posted', 'posted']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await world.close();
      }
    });
  });

  it.concurrent('mark-before-send: an item interrupted mid-send shows in idem review with the attempt it made', async ({ task }) => {
    const { world, env } = await openStrategyWorld(dialect, 'mark-before-send', task.name, [{ kind: 'hang-after-commit', reference: REF }], { headersTimeoutMs: 60_000 });
    try {
      const run = startCli(RUN, env);
      // The run is killed while REF's request hangs at the destination (applied, not answered).
      world.onRequest = (request) => {
        if (request.method === 'POST' && request.reference === REF) setTimeout(() => run.child.kill('SIGKILL'), 200);
      };
      expect((await run.done).signal).toBe('SIGKILL');
      world.onRequest = undefined;
      const rerun = await runCliWhenUnlocked(RUN, env);
      expect(rerun.code, rerun.stdout + rerun.stderr).toBe(3);
      expect(await ledger(world, REF)).toMatchObject([{ status: 'review', attempts: 1 }]);
      const review = await runCli(['review', pipeline.name], env);
      const header = review.stdout.split('\n').find((line) => line.startsWith('destination'))!;
      const row = review.stdout.split('\n').find((line) => line.includes(` ${REF} `))!;
      expect(row.slice(header.indexOf('attempts')).trim().split(/\s+/)[0]).toBe('1');
    } finally {
      await world.close();
    }
  });
});
