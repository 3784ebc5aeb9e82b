import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { FAILPOINT_NAMES, type FailpointName } from '../../src/runner/failpoints.ts';
import { readDailyTotals, recomputeDailyTotals } from '../helpers/daily-totals.ts';
import { describeEachDialect, describeOneDialect, type TestDialect } from '../helpers/dialects.ts';
import { fixtureLines, writeTempSource } from '../helpers/fixtures.ts';
import { openFaultWorld, type FaultWorld } from '../helpers/open-fault-world.ts';
import { runCli, runCliWhenUnlocked } from '../helpers/run-cli.ts';
import { waitForAppLock } from '../helpers/wait-for-app-lock.ts';

const DAY = '2010-12-01';
const RUN = ['run', pipeline.name, '--date', DAY];
/** A kill and a full rerun, CLI children both, while the other cases run theirs on the same cores. */
const CASE_TIMEOUT_MS = 180_000;

/** The derived rows against a recomputation from the target as it stands: they never disagree. */
async function expectDerivedMatchesTarget(world: FaultWorld): Promise<void> {
  expect(await readDailyTotals(world.db)).toEqual(await recomputeDailyTotals(world.db, [DAY]));
}

async function rerun(world: FaultWorld, args: readonly string[] = RUN): Promise<void> {
  await waitForAppLock(world.db, pipeline.name);
  const result = await runCliWhenUnlocked(args, world.env());
  expect(result.code, result.stdout + result.stderr).toBe(0);
}

/** Killed at `point`: the derived rows match the target after the kill and after the rerun. */
async function killedAt(dialect: TestDialect, point: FailpointName): Promise<void> {
  const world = await openFaultWorld(dialect, `derived-kill-${point}`);
  try {
    const batch = point === 'mid-stage' ? ['--batch-rows', '40'] : [];
    const killed = await runCli([...RUN, ...batch], { ...world.env(), IDEM_FAILPOINTS: `${point}=kill` });
    expect(killed.signal).toBe('SIGKILL');
    await expectDerivedMatchesTarget(world);
    // Before the upsert's commit the table is as empty as the target; after it, both are full.
    const committed = FAILPOINT_NAMES.indexOf(point) > FAILPOINT_NAMES.indexOf('mid-upsert');
    expect((await readDailyTotals(world.db)).length > 0).toBe(committed);
    await rerun(world);
    await expectDerivedMatchesTarget(world);
    expect(await readDailyTotals(world.db)).not.toEqual([]);
    expect(await world.db.knex('job_runs').select('status', 'attempts')).toEqual([{ status: 'completed', attempts: 2 }]);
  } finally {
    await world.close();
  }
}

/** The failpoints around the upsert's transaction, where the derived tables are rebuilt. */
const AROUND_THE_UPSERT: readonly FailpointName[] = ['mid-upsert', 'after-upsert'];

// The other failpoints come before the upsert (nothing derived written) or after its commit: one
// dialect shows the derived rows untouched there.
describeOneDialect('derived tables survive kill -9 at the failpoints away from the upsert', (dialect) => {
  it.concurrent.each(FAILPOINT_NAMES.filter((point) => !AROUND_THE_UPSERT.includes(point)))('killed at %s: the derived rows match the target after the kill and after the rerun', (point) => killedAt(dialect, point), CASE_TIMEOUT_MS);
});

describeEachDialect('derived tables survive kill -9 in the upsert\'s transaction, where they are rebuilt', (dialect) => {
  it.concurrent.each(AROUND_THE_UPSERT)('killed at %s: the derived rows match the target after the kill and after the rerun', (point) => killedAt(dialect, point), CASE_TIMEOUT_MS);

  it('a corrected export killed after the DELETE and the INSERT, before the commit, loses nothing; its rerun writes the new totals', async () => {
    const world = await openFaultWorld(dialect, 'derived-kill-corrected');
    try {
      await rerun(world);
      const before = await readDailyTotals(world.db);
      // Invoice 536365 loses its last line: its total, and its country's, change.
      const lines = fixtureLines(DAY).filter((line) => !line.startsWith('536365,21730,'));
      const corrected = `${writeTempSource(`${DAY}.csv`, `${lines.join('\n')}\n`)}/${DAY}.csv`;
      const args = ['run', pipeline.name, '--file', corrected];
      const killed = await runCli(args, { ...world.env(), IDEM_FAILPOINTS: 'mid-upsert=kill' });
      expect(killed.signal).toBe('SIGKILL');
      expect(await readDailyTotals(world.db)).toEqual(before);
      await rerun(world, args);
      const after = await readDailyTotals(world.db);
      expect(after).not.toEqual(before);
      await expectDerivedMatchesTarget(world);
    } finally {
      await world.close();
    }
  }, CASE_TIMEOUT_MS);
});
