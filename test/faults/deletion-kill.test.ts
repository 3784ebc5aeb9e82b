import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PostStrategy } from '../../src/destination/post-strategy.ts';
import { pipeline } from '../../pipelines/shop-catalogue.ts';
import { describeEachDialect, describeOneDialect, type TestDialect } from '../helpers/dialects.ts';
import { openFaultWorld } from '../helpers/open-fault-world.ts';
import { PROJECT_DIR, runCli, runCliWhenUnlocked, startCli } from '../helpers/run-cli.ts';
import { waitForAppLock } from '../helpers/wait-for-app-lock.ts';

const STRATEGIES: PostStrategy[] = ['idempotency-key', 'check-before-create', 'mark-before-send'];
const CATALOGUE_DIR = path.join(PROJECT_DIR, 'fixtures', 'shop-catalogue');
const codes = (date: string): string[] =>
  readFileSync(path.join(CATALOGUE_DIR, `${date}.csv`), 'utf8').trim().split('\n').slice(1).map((line) => JSON.parse(line.split(',')[0]!) as string);
/** The products of 2010-12-01 that 2010-12-02's full export lacks: 15 deletions. */
const GONE = codes('2010-12-01').filter((code) => !codes('2010-12-02').includes(code));
const RUN = ['run', pipeline.name, '--date', '2010-12-02'];

/** After a clean run of 2010-12-01 created every product once under `strategy`. */
async function openDeletionWorld(dialect: TestDialect, strategy: PostStrategy, identity: string) {
  const world = await openFaultWorld(dialect, identity);
  world.sandbox.configure({ idempotencyKeys: strategy === 'idempotency-key' });
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-catalogue-'));
  cpSync(CATALOGUE_DIR, dir, { recursive: true });
  // Short timeouts, settle delay and takeover grace, as in update-kill.
  const env = { ...world.env({ strategy, settleDelayMs: 1000, http: { headersTimeoutMs: 3000, bodyTimeoutMs: 3000 } }), IDEM_TAKEOVER_GRACE_MS: '1000', IDEM_SOURCE_DIR: dir };
  const first = await runCli(['run', pipeline.name, '--date', '2010-12-01'], env);
  expect(first.code, first.stderr).toBe(0);
  return {
    world,
    env,
    deletes: () => world.sandbox.state.stats().requests.filter((r) => r.method === 'DELETE'),
    remoteGone: () => world.sandbox.state.records().filter((r) => GONE.includes(r.reference)).map((r) => r.reference),
    ledger: async () => (await world.db.knex('post_ledger').where({ row_hash: 'deleted' }).select('source_reference', 'status')) as { source_reference: string; status: string }[],
    async close() {
      rmSync(dir, { recursive: true, force: true });
      await world.close();
    },
  };
}

/** Killed between marking and posting (after-upsert), then a plain rerun: every deletion sent once. */
async function killedAfterUpsert(dialect: TestDialect, strategy: PostStrategy, identity: string): Promise<void> {
  const t = await openDeletionWorld(dialect, strategy, identity);
  try {
    const killed = await runCli(RUN, { ...t.env, IDEM_FAILPOINTS: 'after-upsert=kill' });
    expect(killed.signal).toBe('SIGKILL');
    // Marked and enqueued in the upsert's transaction; nothing sent.
    expect(await t.world.db.knex(pipeline.tables.target).whereNotNull('deleted_at').count({ n: '*' }).then((r) => Number(r[0]!.n))).toBe(GONE.length);
    expect((await t.ledger()).map((i) => i.status)).toEqual(GONE.map(() => 'pending'));
    expect(t.deletes()).toHaveLength(0);
    await waitForAppLock(t.world.db, pipeline.name);
    const rerun = await runCliWhenUnlocked(RUN, t.env);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(t.deletes().map((r) => r.reference).sort()).toEqual([...GONE].sort());
    expect(t.remoteGone()).toEqual([]);
    expect((await t.ledger()).map((i) => i.status)).toEqual(GONE.map(() => 'posted'));
  } finally {
    await t.close();
  }
}

/** Killed as the 3rd DELETE reached the destination, then a plain rerun: none applied twice. */
async function killedAtThirdDelete(dialect: TestDialect, strategy: PostStrategy, identity: string): Promise<void> {
  const t = await openDeletionWorld(dialect, strategy, identity);
  try {
    const child = startCli(RUN, t.env);
    let deletes = 0;
    t.world.onRequest = (request) => {
      if (request.method === 'DELETE' && ++deletes === 3) child.child.kill('SIGKILL');
    };
    expect((await child.done).signal).toBe('SIGKILL');
    t.world.onRequest = undefined;
    await waitForAppLock(t.world.db, pipeline.name);
    const rerun = await runCliWhenUnlocked(RUN, t.env);
    // By path (the remote item's id): a repeat of a DELETE already applied finds no record to name its reference.
    const byItem = new Map<string, string[]>();
    for (const r of t.deletes()) byItem.set(r.path, [...(byItem.get(r.path) ?? []), r.idempotencyKey ?? '']);
    const twice = [...byItem].filter(([, keys]) => keys.length > 1);
    if (strategy === 'mark-before-send') {
      // A DELETE that may have been in flight is left to an operator, never sent again.
      expect(rerun.code, rerun.stderr).toBe(3);
      expect(twice).toEqual([]);
      const review = (await t.ledger()).filter((i) => i.status === 'review');
      expect(review.length).toBeGreaterThanOrEqual(1);
      expect(t.remoteGone().every((reference) => review.some((i) => i.source_reference === reference))).toBe(true);
    } else {
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(byItem.size).toBe(GONE.length);
      expect(t.remoteGone()).toEqual([]);
      expect((await t.ledger()).map((i) => i.status)).toEqual(GONE.map(() => 'posted'));
      // check-before-create looks first and finds it gone; idempotency-key sends it again under
      // the same key, and the destination replays its first answer.
      if (strategy === 'check-before-create') expect(twice).toEqual([]);
      else for (const [, keys] of twice) expect(new Set(keys).size).toBe(1);
    }
  } finally {
    await t.close();
  }
}

// The deletions are marked and enqueued in the upsert's transaction, and claimed and recorded
// through the ledger's SQL: on every dialect. What each strategy does with a DELETE in flight is
// decided in src/post/, above the adapter: the other strategies on one dialect.
describeEachDialect('a deletion is posted exactly once through kill -9', (dialect) => {
  it.concurrent('killed between marking and posting (after-upsert), then a plain rerun', ({ task }) => killedAfterUpsert(dialect, 'idempotency-key', task.name), 180_000);
  it.concurrent('killed as the 3rd DELETE reached the destination, then a plain rerun', ({ task }) => killedAtThirdDelete(dialect, 'idempotency-key', task.name), 180_000);
});

describeOneDialect('a deletion in flight under the other strategies, through kill -9', (dialect) => {
  describe.each(STRATEGIES.filter((s) => s !== 'idempotency-key'))('%s', (strategy) => {
    it.concurrent('killed between marking and posting (after-upsert), then a plain rerun', ({ task }) => killedAfterUpsert(dialect, strategy, task.name), 180_000);
    it.concurrent('killed as the 3rd DELETE reached the destination, then a plain rerun', ({ task }) => killedAtThirdDelete(dialect, strategy, task.name), 180_000);
  });
});
