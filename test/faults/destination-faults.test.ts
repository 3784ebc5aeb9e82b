import { describe, expect, it } from 'vitest';
import type { PostStrategy } from '../../src/destination/post-strategy.ts';
import type { SandboxFault } from '../../src/sandbox/sandbox-fault.ts';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeOneDialect, type TestDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { readAftermath } from '../helpers/read-aftermath.ts';
import { runCli, summaryOf } from '../helpers/run-cli.ts';

// test/integration/post-stage.test.ts covers accept-then-hang for every strategy, and a 400,
// 503s and Retry-After on one invoice under idempotency-key. This file adds the connection reset
// after commit, storms across many invoices, and the 400 under the other two strategies.
const DAY = '2010-12-01';
const INVOICES = 143;
const REF = '536365';
const STRATEGIES: PostStrategy[] = ['idempotency-key', 'check-before-create', 'mark-before-send'];

/** A world whose destination uses `strategy`, with the sandbox's faults queued, and what tests ask of it. */
async function openStrategyWorld(dialect: TestDialect, strategy: PostStrategy, faults: SandboxFault[], identity: string) {
  const world: FaultWorld = await openFaultWorld(dialect, identity);
  // Only idempotency-key relies on the destination honouring keys; the others must not need it.
  world.sandbox.configure({ idempotencyKeys: strategy === 'idempotency-key' });
  world.sandbox.addFaults(faults);
  const env = world.env({ strategy });
  const { db, sandbox } = world;
  return {
    world,
    run: () => runCli(['run', pipeline.name, '--date', DAY], env),
    review: (...args: string[]) => runCli(['review', pipeline.name, ...args], env),
    posts: (reference?: string) => sandbox.state.stats().requests.filter((r) => r.method === 'POST' && (reference === undefined || r.reference === reference)),
    ledger: (reference: string) => db.knex('post_ledger').where({ source_reference: reference }).select('status', 'failure_kind', 'attempts'),
    atMostOnce: () => Object.values(sandbox.state.stats().byReference).every((n) => n <= 1),
    exactlyOnceAndCompleted: async (attempts: number) =>
      expect(await readAftermath(db, sandbox)).toMatchObject({ remoteRecords: INVOICES, notOnceRemotely: [], jobRuns: [{ runKey: DAY, status: 'completed', attempts }], lockFree: true }),
  };
}

// Every case has its own database and sandbox, so all of them run concurrently.
describeOneDialect('destination faults: each invoice at most once, and exactly once after the documented action', (dialect) => {
  describe.each(STRATEGIES)('%s', (strategy) => {
    const open = (faults: SandboxFault[], identity: string) => openStrategyWorld(dialect, strategy, faults, `destination-${strategy}-${identity}`);

    it.concurrent('the connection is reset after the destination committed one invoice', async () => {
      const t = await open([{ kind: 'reset-after-commit', reference: REF }], 'reset');
      try {
        const first = await t.run();
        expect(t.atMostOnce()).toBe(true);
        expect(t.world.sandbox.state.countByReference(REF)).toBe(1);
        if (strategy === 'mark-before-send') {
          // Unknown outcome: never resent blindly, it waits for an operator.
          expect(first.code).toBe(3);
          expect(t.posts(REF)).toHaveLength(1);
          expect(await t.ledger(REF)).toMatchObject([{ status: 'review', attempts: 1 }]);
          expect((await t.run()).code).toBe(3);
          expect(t.posts(REF)).toHaveLength(1);
          const remote = t.world.sandbox.state.recordsByReference(REF)[0]!.id;
          expect((await t.review('--mark-posted', REF, '--remote-ref', remote)).stdout).toContain(`run ${DAY} is now completed`);
          expect(summaryOf(await t.run()).outcome).toBe('noop');
          await t.exactlyOnceAndCompleted(2);
        } else {
          expect(first.code).toBe(0);
          // idempotency-key resends under the same key and gets the stored answer; check-before-create looks first and finds it.
          const sent = t.posts(REF);
          expect(sent).toHaveLength(strategy === 'idempotency-key' ? 2 : 1);
          if (strategy === 'idempotency-key') expect(sent[1]!.idempotencyKey).toBe(sent[0]!.idempotencyKey);
          if (strategy === 'check-before-create') expect(summaryOf(first).counts.post['sandbox-accounting']).toMatchObject({ found: 1 });
          expect(await t.ledger(REF)).toMatchObject([{ status: 'posted', attempts: 2 }]);
          await t.exactlyOnceAndCompleted(1);
        }
      } finally {
        await t.world.close();
      }
    });

    it.concurrent('a storm of 20 × 503 then 5 × 429 (Retry-After: 1) across invoices: all retried, each created once', async () => {
      const storm: SandboxFault[] = [
        { kind: 'status', status: 503, count: 20 },
        { kind: 'status', status: 429, retryAfterSeconds: 1, count: 5 },
      ];
      const t = await open(storm, 'storm');
      try {
        const result = await t.run();
        expect(result.code).toBe(0);
        expect(summaryOf(result).counts.post['sandbox-accounting']).toMatchObject({ sent: INVOICES, posted: INVOICES, failed: 0, review: 0 });
        expect(t.posts()).toHaveLength(INVOICES + 25);
        await t.exactlyOnceAndCompleted(1);
      } finally {
        await t.world.close();
      }
    });

    // Under idempotency-key: post-stage.test.ts ("stops at a 400 after one attempt …").
    if (strategy !== 'idempotency-key') it.concurrent('a 400 on one invoice fails it at once; --retry after the fix and a rerun send it once', async () => {
      const t = await open([{ kind: 'status', status: 400, reference: REF, body: { error: 'validation_failed' } }], '400');
      try {
        const first = await t.run();
        expect(first.code).toBe(3);
        expect(t.posts(REF)).toHaveLength(1);
        expect(await t.ledger(REF)).toMatchObject([{ status: 'failed', failure_kind: 'terminal', attempts: 1 }]);
        expect(t.world.sandbox.state.records()).toHaveLength(INVOICES - 1);
        expect(t.atMostOnce()).toBe(true);

        expect((await t.review('--retry', REF)).code).toBe(0);
        expect((await t.run()).code).toBe(0);
        expect(t.posts(REF)).toHaveLength(2);
        await t.exactlyOnceAndCompleted(2);
      } finally {
        await t.world.close();
      }
    });
  });
});
