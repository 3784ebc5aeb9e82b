import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect, describeOneDialect, type TestDialect } from '../helpers/dialects.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { runCli, runCliWhenUnlocked, startCli, summaryOf } from '../helpers/run-cli.ts';
import { DESTINATION } from '../helpers/sandbox.ts';
import { waitForAppLock } from '../helpers/wait-for-app-lock.ts';

const INVOICES = 143;
const REF = '536365';
const REPOST = ['repost', pipeline.name, '--destination', DESTINATION];

/** Each remote record's revision, by reference (1: created; one more per update applied). */
function revisions(world: FaultWorld): Map<string, number> {
  return new Map(world.sandbox.state.records().map((r) => [r.reference, r.revision]));
}

/** Damages one remote record as a wrong `request()` would have: its total replaced. */
async function damage(world: FaultWorld, reference: string): Promise<void> {
  const record = world.sandbox.state.records().find((r) => r.reference === reference)!;
  const response = await fetch(`${world.sandbox.url}/invoices/${record.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ total: '0.01' }) });
  expect(response.status).toBe(200);
}

/**
 * A reference, then every record with a kill in the middle, under `strategy`: each record updated
 * once per repost, and a rerun sends nothing.
 */
async function repostThroughAKill(dialect: TestDialect, strategy: 'idempotency-key' | 'mark-before-send', identity: string): Promise<void> {
  const world = await openFaultWorld(dialect, identity);
  try {
    world.sandbox.configure({ idempotencyKeys: strategy === 'idempotency-key' });
    const env = world.env({ strategy });
    const first = await runCli(['run', pipeline.name, '--date', '2010-12-01'], env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const total = (await world.db.knex(pipeline.tables.target).where({ source_reference: REF }).first('total')) as { total: unknown };
    const expectedTotal = String(world.db.adapter.fromDriverValue(pipeline.columns.total!, total.total));
    await damage(world, REF);
    expect(world.sandbox.state.records().find((r) => r.reference === REF)!.total).toBe('0.01');
    const ledgerBefore = await world.db.knex('post_ledger').count({ n: '*' });

    const planned = await runCli([...REPOST, '--reference', REF, '--dry-run'], env);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toBe(`1 posted record(s) of ${pipeline.name} would be sent again to ${DESTINATION}: ${REF}\n`);
    expect(await world.db.knex('post_ledger').count({ n: '*' })).toEqual(ledgerBefore);
    expect(world.sandbox.state.stats().updateRequests).toBe(1); // the damage only

    const one = await runCli([...REPOST, '--reference', REF], env);
    expect(one.code, one.stdout + one.stderr).toBe(0);
    expect(summaryOf(one).counts.repost).toEqual({ destination: DESTINATION, enqueued: 1 });
    const repaired = world.sandbox.state.records().find((r) => r.reference === REF)!;
    expect(repaired).toMatchObject({ total: expectedTotal, revision: 3 });
    expect(world.sandbox.state.stats()).toMatchObject({ records: INVOICES, postRequests: INVOICES, updateRequests: 2 });
    const item = await world.db.knex('post_ledger').where({ run_key: `repost:${DESTINATION}:reference:${REF}` }).select('status', 'idempotency_key', 'remote_reference');
    expect(item).toEqual([{ status: 'posted', idempotency_key: expect.stringMatching(/^idem-[0-9a-f]{40}#repost-1$/), remote_reference: repaired.id }]);

    const again = await runCli([...REPOST, '--reference', REF], env);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(summaryOf(again).outcome).toBe('noop');
    expect(world.sandbox.state.stats().updateRequests).toBe(2);

    // Every record, killed as the 3rd PUT reaches the destination, then the same command again.
    const child = startCli(REPOST, env);
    let puts = 0;
    let killedAt: string | null = null;
    world.onRequest = (request) => {
      if (request.method === 'PUT' && ++puts === 3) {
        killedAt = request.reference;
        child.child.kill('SIGKILL');
      }
    };
    const killed = await child.done;
    expect(killed.signal, killed.stdout + killed.stderr).toBe('SIGKILL');
    world.onRequest = undefined;
    await waitForAppLock(world.db, pipeline.name);
    const resumed = await runCliWhenUnlocked(REPOST, env);
    expect(summaryOf(resumed).counts.repost).toEqual({ destination: DESTINATION, resumed: true });
    const byReference = revisions(world);
    expect(world.sandbox.state.stats()).toMatchObject({ records: INVOICES, postRequests: INVOICES });
    const items = (await world.db.knex('post_ledger').where({ run_key: `repost:${DESTINATION}:all` }).select('source_reference', 'status')) as { source_reference: string; status: string }[];
    expect(items).toHaveLength(INVOICES);
    if (strategy === 'idempotency-key') {
      // The PUT in flight at the kill was sent again under its key: applied once.
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(items.every((i) => i.status === 'posted')).toBe(true);
      expect([...byReference].filter(([reference, revision]) => revision !== (reference === REF ? 4 : 2))).toEqual([]);
    } else {
      // The PUTs in flight at the kill (marked sending) are left to an operator, never sent again blind.
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(3);
      const review = items.filter((i) => i.status === 'review').map((i) => i.source_reference);
      expect(review.length).toBeGreaterThanOrEqual(1);
      expect(items.filter((i) => i.status === 'posted')).toHaveLength(INVOICES - review.length);
      // Every other record updated exactly once by this repost; each one in review at most once.
      const base = (reference: string): number => (reference === REF ? 3 : 1);
      expect([...byReference].filter(([reference, revision]) => !review.includes(reference) && revision !== base(reference) + 1)).toEqual([]);
      expect(review.filter((reference) => byReference.get(reference)! - base(reference) > 1)).toEqual([]);
      expect(review).toContain(killedAt);
    }
    const updates = world.sandbox.state.stats().updateRequests;
    const rerun = await runCli(REPOST, env);
    expect(world.sandbox.state.stats().updateRequests).toBe(updates);
    expect(rerun.code).toBe(strategy === 'idempotency-key' ? 0 : 3);
    if (strategy === 'idempotency-key') expect(summaryOf(rerun).outcome).toBe('noop');
    else {
      // An operator who found the record not updated sends it again with the repost, as review says.
      const retried = await runCli(['review', pipeline.name, '--retry', killedAt!], env);
      expect(retried.stdout).toBe(`${killedAt} will be sent again; now run: idem repost ${pipeline.name} --destination ${DESTINATION}\n`);
      const finished = await runCli(REPOST, env);
      expect(world.sandbox.state.stats().updateRequests).toBe(updates + 1);
      expect(finished.code).toBe((await world.db.knex('post_ledger').where({ status: 'review' }).count({ n: '*' }))[0]!.n == 0 ? 0 : 3);
    }
  } finally {
    await world.close();
  }
}

/** check-before-create: looks the record up, then updates it, never creates one, through kill -9. */
async function repostLookingUpFirst(dialect: TestDialect, identity: string): Promise<void> {
  const world = await openFaultWorld(dialect, identity);
  try {
    const env = world.env({ strategy: 'check-before-create' });
    const first = await runCli(['run', pipeline.name, '--date', '2010-12-01'], env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const total = (await world.db.knex(pipeline.tables.target).where({ source_reference: REF }).first('total')) as { total: unknown };
    const expectedTotal = String(world.db.adapter.fromDriverValue(pipeline.columns.total!, total.total));
    await damage(world, REF);

    // Killed once its update was applied, before the repost completed: the rerun's look-up
    // finds the record of the repost's version, and sends nothing again.
    const killed = await runCli([...REPOST, '--reference', REF], { ...env, IDEM_FAILPOINTS: 'before-complete=kill' });
    expect(killed.signal, killed.stdout + killed.stderr).toBe('SIGKILL');
    const repaired = world.sandbox.state.records().find((r) => r.reference === REF)!;
    expect(repaired).toMatchObject({ total: expectedTotal, revision: 3, version: expect.stringMatching(/^[0-9a-f]+#repost-1$/) });
    await waitForAppLock(world.db, pipeline.name);
    const resumed = await runCliWhenUnlocked([...REPOST, '--reference', REF], env);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(summaryOf(resumed).counts.repost).toEqual({ destination: DESTINATION, resumed: true });
    expect(world.sandbox.state.stats()).toMatchObject({ records: INVOICES, postRequests: INVOICES, updateRequests: 2 });
    expect(world.sandbox.state.records().find((r) => r.reference === REF)!.revision).toBe(3);
    expect(await world.db.knex('post_ledger').where({ run_key: `repost:${DESTINATION}:reference:${REF}` }).select('status', 'remote_reference')).toEqual([{ status: 'posted', remote_reference: repaired.id }]);

    // Every record, killed as the 3rd PUT reaches the destination (it is applied), then the same command again.
    const child = startCli(REPOST, env);
    let puts = 0;
    world.onRequest = (request) => {
      if (request.method === 'PUT' && ++puts === 3) child.child.kill('SIGKILL');
    };
    const cut = await child.done;
    expect(cut.signal, cut.stdout + cut.stderr).toBe('SIGKILL');
    world.onRequest = undefined;
    await waitForAppLock(world.db, pipeline.name);
    const finished = await runCliWhenUnlocked(REPOST, env);
    expect(finished.code, finished.stdout + finished.stderr).toBe(0);
    // One record per invoice, none created by the repost; each updated exactly once by it.
    expect(world.sandbox.state.stats()).toMatchObject({ records: INVOICES, postRequests: INVOICES, updateRequests: 2 + INVOICES });
    expect([...revisions(world)].filter(([reference, revision]) => revision !== (reference === REF ? 4 : 2))).toEqual([]);
    const items = (await world.db.knex('post_ledger').where({ run_key: `repost:${DESTINATION}:all` }).select('status')) as { status: string }[];
    expect([items.length, items.every((i) => i.status === 'posted')]).toEqual([INVOICES, true]);
    const again = await runCli(REPOST, env);
    expect([again.code, summaryOf(again).outcome]).toEqual([0, 'noop']);
    expect(world.sandbox.state.stats().updateRequests).toBe(2 + INVOICES);
  } finally {
    await world.close();
  }
}

// The repost's enqueue, its claims and a kill in the middle run on every dialect; what the other
// strategies do with a PUT in flight is decided in src/post/, above the adapter: one dialect.
describeEachDialect('idem repost: posted records sent again through the ledger, exactly once', (dialect) => {
  it.concurrent('idempotency-key: a reference, then every record with a kill in the middle: each record updated once per repost, a rerun sends nothing', ({ task }) =>
    repostThroughAKill(dialect, 'idempotency-key', task.name),
  );

  it('refuses what it cannot do: an unknown destination (exit 2), --since with --reference (exit 2), a reference posted nowhere (exit 2, no job_runs row); a held lock exits 75', async ({ task }) => {
    const world = await openFaultWorld(dialect, task.name);
    try {
      const first = await runCli(['run', pipeline.name, '--date', '2010-12-01'], world.env());
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const unknown = await runCli(['repost', pipeline.name, '--destination', 'nowhere'], world.env());
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(`pipeline ${pipeline.name} has no destination "nowhere" (it has: ${DESTINATION})`);
      const both = await runCli([...REPOST, '--since', '2010-12-01', '--reference', REF], world.env());
      expect(both.code).toBe(2);
      // A mistyped reference: not a repost that completed having sent nothing.
      for (const dryRun of [[], ['--dry-run']]) {
        const typo = await runCli([...REPOST, '--reference', `${REF}x`, ...dryRun], world.env());
        expect(typo.code, typo.stderr).toBe(2);
        expect(typo.summary?.err).toMatchObject({ message: expect.stringContaining(`--reference "${REF}x" names no record of ${pipeline.name} posted to ${DESTINATION}`) });
      }
      expect(Number((await world.db.knex('job_runs').where('run_key', 'like', 'repost:%').count({ n: '*' }).first())?.n)).toBe(0);
      expect(world.sandbox.state.stats().updateRequests).toBe(0);
      // Held by a paused repost: another repost (or run) of the pipeline is told to retry later.
      // A lease longer than the test: the paused holder keeps the lock on SQLite too.
      const held = startCli([...REPOST, '--since', '2010-12-01'], { ...world.env(), IDEM_LOCK_LEASE_MS: '120000' });
      const child = held.child;
      const paused = new Promise<void>((resolve) => {
        world.onRequest = (request) => {
          if (request.method !== 'PUT') return;
          world.onRequest = undefined;
          child.kill('SIGSTOP');
          resolve();
        };
      });
      await paused;
      const refused = await runCli(REPOST, world.env());
      expect(refused.code).toBe(75);
      child.kill('SIGCONT');
      expect((await held.done).code).toBe(0);
      expect(world.sandbox.state.stats()).toMatchObject({ updateRequests: INVOICES });
    } finally {
      await world.close();
    }
  });
});

describeOneDialect('idem repost under the strategies without idempotency keys', (dialect) => {
  it.concurrent('mark-before-send: a reference, then every record with a kill in the middle: the PUTs in flight go to review, never resent blind', ({ task }) =>
    repostThroughAKill(dialect, 'mark-before-send', task.name),
  );
  it.concurrent('check-before-create: looks the record up, then updates it, never creates one; killed -9 at a failpoint and as a PUT reaches the destination, each record updated once', { timeout: 180_000 }, ({ task }) =>
    repostLookingUpFirst(dialect, task.name),
  );
});
