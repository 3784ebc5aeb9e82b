import pMap from 'p-map';
import { FAILPOINT_NAMES, type FailpointName } from '../runner/failpoints.ts';
import { compareTargetSnapshots } from './compare-target-snapshots.ts';
import type { ProveCheck } from './prove-check.ts';
import { withProveCase, type ProveCase, type ProveTarget } from './prove-case.ts';
import { runIdemChild, runIdemChildWhenUnlocked, startIdemChild, type IdemChildResult } from './run-idem-child.ts';
import type { TargetSnapshot } from './read-target-snapshot.ts';
import { scratchDatabases } from './scratch-databases.ts';
import { seededRandom } from './seeded-random.ts';
import { settleReviewItems } from './settle-review-items.ts';

/** How many random points in the post stage are killed. */
const POST_KILLS = 3;
/**
 * `before-stage` sleep of both runs of the overlap check, in ms: however unevenly two processes
 * start, the first still holds the lock when the second asks for it.
 */
const OVERLAP_SLEEP_MS = 2000;

/** Settings of one proof besides the pipeline and run key. */
export interface ProveOptions extends Omit<ProveTarget, 'databases'> {
  /** A server to create scratch databases on (see `scratchDatabases`); undefined = temp SQLite files. */
  readonly serverUrl: string | undefined;
  /** Seed of the random kill points in the post stage; the same seed picks the same points. */
  readonly seed: number;
  /** Checks run at once, each on its own scratch database and stand-ins. @defaultValue 2 */
  readonly concurrency?: number;
  /** Called as each check ends (progress for a person watching). */
  readonly onCheck?: (check: ProveCheck) => void;
}

/** What the clean run established: what every crash-and-rerun must end with. */
interface Reference {
  readonly snapshot: TargetSnapshot;
  /** Remote records of the clean run, across destinations. */
  readonly records: number;
  /** POST requests of the clean run: the range the random kill points are drawn from. */
  readonly posts: number;
}

/**
 * `idem prove`: runs a pipeline as the scheduler would (child processes of the real CLI) against
 * throwaway databases and in-process stand-ins for its destinations, and checks that it is safe to
 * run twice:
 * 1. a clean run (the reference rows and remote records);
 * 2. the same run again is a no-op that sends nothing;
 * 3. SIGKILL at each failpoint, then a rerun: the same rows, each record once at each destination,
 *    `job_runs` completed with 2 attempts, no staging rows and no lock left;
 * 4. the same after a SIGKILL once the Nth POST reached a destination, for random N (seeded);
 * 5. two runs at once: one exits 75, the other completes;
 * 6. a `--force` rerun inserts, updates and sends nothing.
 * Checks 3–5 each get a fresh scratch database and stand-ins, and run `concurrency` at a time.
 * @returns one {@link ProveCheck} per line of the table, in the order above.
 */
export async function provePipeline(options: ProveOptions): Promise<ProveCheck[]> {
  const databases = scratchDatabases(options.config.projectDir, options.serverUrl);
  try {
    return await prove({ ...options, databases });
  } finally {
    await databases.dispose();
  }
}

async function prove(options: Omit<ProveOptions, 'serverUrl'> & ProveTarget): Promise<ProveCheck[]> {
  const { pipeline } = options;
  /** `requests N`, for a pipeline that posts anywhere (the stand-ins count what reached them). */
  const requestsText = (sent: number): string[] => (pipeline.destinations.length ? [`requests ${sent}`] : []);
  const report = (check: ProveCheck): ProveCheck => {
    options.onCheck?.(check);
    return check;
  };
  const timed = async (name: string, work: () => Promise<Omit<ProveCheck, 'name' | 'ms'>>): Promise<ProveCheck> => {
    const started = performance.now();
    let outcome: Omit<ProveCheck, 'name' | 'ms'>;
    try {
      outcome = await work();
    } catch (error) {
      outcome = { result: 'fail', counts: `error: ${(error as Error).message}` };
    }
    return report({ name, ...outcome, ms: Math.round(performance.now() - started) });
  };

  // 1, 2 and 6 share one database: the no-op and the --force rerun follow the clean run.
  let reference: Reference | undefined;
  const first: ProveCheck[] = [];
  let forceCheck: ProveCheck | undefined;
  await withProveCase(options, async (c) => {
    first.push(
      await timed('clean run', async () => {
        const run = await runIdemChild(c.runArgs, c.env());
        if (run.code !== 0 || run.summary?.outcome !== 'completed') return { result: 'fail', counts: describeEnd(run) };
        const state = await c.inspect();
        const tally = c.standIns.tally();
        const expected = state.snapshot.size * pipeline.destinations.length;
        const parts = [`rows ${state.snapshot.size}`, ...(pipeline.destinations.length ? [remoteText(tally, expected), `requests ${c.standIns.requests()}`] : [])];
        const ok = state.snapshot.size > 0 && tally.duplicates.length === 0 && tally.records === expected;
        if (state.snapshot.size === 0) parts.push('nothing to prove: the run wrote no rows');
        if (ok) reference = { snapshot: state.snapshot, records: tally.records, posts: c.standIns.posts() };
        return { result: ok ? 'pass' : 'fail', counts: parts.join(', ') };
      }),
    );
    if (!reference) return;
    const ref = reference;
    first.push(
      await timed('second run is a no-op', async () => {
        const before = c.standIns.requests();
        const run = await runIdemChild(c.runArgs, c.env());
        const sent = c.standIns.requests() - before;
        const rows = compareTargetSnapshots(ref.snapshot, (await c.inspect()).snapshot);
        const ok = run.code === 0 && run.summary?.outcome === 'noop' && sent === 0 && rows.equal;
        return { result: ok ? 'pass' : 'fail', counts: [run.code === 0 ? String(run.summary?.outcome) : describeEnd(run), rows.text, ...requestsText(sent)].join(', ') };
      }),
    );
    forceCheck = await timed('--force rerun', async () => {
      const before = c.standIns.requests();
      const run = await runIdemChild([...c.runArgs, '--force'], c.env());
      const sent = c.standIns.requests() - before;
      const upsert = (run.summary?.counts as { upsert?: { inserted?: number; updated?: number } } | undefined)?.upsert;
      const rows = compareTargetSnapshots(ref.snapshot, (await c.inspect()).snapshot);
      const ok = run.code === 0 && upsert?.inserted === 0 && upsert.updated === 0 && sent === 0 && rows.equal;
      return { result: ok ? 'pass' : 'fail', counts: run.code === 0 ? [`inserted ${upsert?.inserted}`, `updated ${upsert?.updated}`, ...requestsText(sent), rows.text].join(', ') : describeEnd(run) };
    });
  });
  if (!reference) return [...first, report({ name: 'crash, rerun and overlap checks', result: 'fail', counts: 'not run: they compare with a clean run, and there is none', ms: 0 })];
  const ref = reference;

  const random = seededRandom(options.seed);
  const killPoints = pickDistinct(ref.posts, POST_KILLS, random);
  const cases: { name: string; run?: (c: ProveCase) => Promise<Omit<ProveCheck, 'name' | 'ms'>>; skip?: string }[] = [
    ...FAILPOINT_NAMES.map((point) => ({ name: `kill at ${point}, rerun`, run: (c: ProveCase) => killAtFailpoint(c, point) })),
    ...(pipeline.destinations.length === 0
      ? [{ name: 'kill during post, rerun', skip: 'no destinations' }]
      : killPoints.map((n) => ({ name: `kill after POST ${n} of ${ref.posts}, rerun`, run: (c: ProveCase) => killAfterPost(c, n) }))),
    { name: 'two runs at once', run: (c: ProveCase) => overlap(c) },
  ];

  async function killAtFailpoint(c: ProveCase, point: FailpointName): Promise<Omit<ProveCheck, 'name' | 'ms'>> {
    // One staging batch per third of the rows, so mid-stage fires with batches still to come.
    const batch = point === 'mid-stage' ? ['--batch-rows', String(Math.max(1, Math.floor(ref.snapshot.size / 3)))] : [];
    const killed = await runIdemChild([...c.runArgs, ...batch], c.env({ IDEM_FAILPOINTS: `${point}=kill` }));
    if (killed.signal !== 'SIGKILL') {
      // A point the run never reaches (before-post without destinations) proves nothing.
      if (killed.code === 0) return { result: 'skip', counts: `not reached: the run ended with exit 0` };
      return { result: 'fail', counts: `the run to be killed ${describeEnd(killed)}` };
    }
    return recover(c, 2);
  }

  async function killAfterPost(c: ProveCase, n: number): Promise<Omit<ProveCheck, 'name' | 'ms'>> {
    const child = startIdemChild(c.runArgs, c.env());
    let seen = 0;
    c.standIns.onPost = () => {
      if (++seen === n) child.process.kill('SIGKILL');
    };
    const killed = await child.done;
    c.standIns.onPost = undefined;
    if (killed.signal !== 'SIGKILL') return { result: 'fail', counts: `the run to be killed ${describeEnd(killed)} after ${seen} POSTs` };
    return recover(c, 2);
  }

  async function overlap(c: ProveCase): Promise<Omit<ProveCheck, 'name' | 'ms'>> {
    // Nothing is killed here, so SQLite gets its default lease: a winner slowed by a busy CPU
    // must not lose a 1 s lease to the other run.
    const env = c.env({ IDEM_FAILPOINTS: `before-stage=sleep:${OVERLAP_SLEEP_MS}`, IDEM_LOCK_LEASE_MS: '30000' });
    const runs = await Promise.all([startIdemChild(c.runArgs, env).done, startIdemChild(c.runArgs, env).done]);
    const codes = runs.map((r) => r.code).sort((a, b) => (a ?? -1) - (b ?? -1));
    const exits = `exit ${codes.join(' + ')}`;
    if (codes[0] !== 0 || codes[1] !== 75) return { result: 'fail', counts: `${exits} (expected 0 + 75)` };
    return verify(c, 1, [exits]);
  }

  /** Reruns after a crash (as the next scheduled run would) and checks what it ends with. */
  async function recover(c: ProveCase, attempts: number): Promise<Omit<ProveCheck, 'name' | 'ms'>> {
    await c.waitForLockFree();
    const rerun = await runIdemChildWhenUnlocked(c.runArgs, c.env());
    const parts: string[] = [];
    let expectedAttempts = attempts;
    if (rerun.code === 3) {
      // mark-before-send: what was in flight is in review; settle it as an operator would.
      const settled = await c.withDatabase((db) => settleReviewItems(db, pipeline, c.standIns));
      parts.push(`review: ${settled.markedPosted} marked posted, ${settled.retried} retried`);
      if (settled.failed > 0) return { result: 'fail', counts: `${settled.failed} item(s) failed terminally after the rerun` };
      if (settled.retried > 0) {
        const last = await runIdemChild(c.runArgs, c.env());
        if (last.code !== 0) return { result: 'fail', counts: `${parts.join(', ')}; the run after that ${describeEnd(last)}` };
        expectedAttempts += 1;
      }
    } else if (rerun.code !== 0) {
      return { result: 'fail', counts: `the rerun ${describeEnd(rerun)}` };
    }
    return verify(c, expectedAttempts, parts);
  }

  /** Rows as the clean run's, each record once per destination, completed, nothing left behind. */
  async function verify(c: ProveCase, attempts: number, extra: string[]): Promise<Omit<ProveCheck, 'name' | 'ms'>> {
    const state = await c.inspect();
    const rows = compareTargetSnapshots(ref.snapshot, state.snapshot);
    const tally = c.standIns.tally();
    const run = state.jobRun;
    const checks: [boolean, string][] = [
      [rows.equal, rows.text],
      ...(pipeline.destinations.length ? [[tally.duplicates.length === 0 && tally.records === ref.records, remoteText(tally, ref.records)] as [boolean, string]] : []),
      [run?.status === 'completed' && run.attempts === attempts, run?.status === 'completed' ? `attempts ${run.attempts}${run.attempts === attempts ? '' : ` ≠ ${attempts}`}` : `job_runs ${run?.status ?? 'missing'}`],
      [state.stagingRows === 0, `staging ${state.stagingRows}`],
      [state.lockFree, state.lockFree ? 'lock free' : 'lock still held'],
    ];
    return { result: checks.every(([ok]) => ok) ? 'pass' : 'fail', counts: [...extra, ...checks.map(([, text]) => text)].join(', ') };
  }

  const rest = await pMap(
    cases,
    ({ name, run, skip }) => (run ? timed(name, () => withProveCase(options, run)) : report({ name, result: 'skip', counts: skip ?? '', ms: 0 })),
    { concurrency: options.concurrency ?? 2 },
  );
  return [...first, ...rest, ...(forceCheck ? [forceCheck] : [])];
}

/** `remote 143 once`, or what is wrong: a count other than `expected`, or references held more than once. */
function remoteText(tally: { records: number; duplicates: readonly (readonly [string, number])[] }, expected: number): string {
  if (tally.duplicates.length === 0 && tally.records === expected) return `remote ${tally.records} once`;
  const dup = tally.duplicates.map(([reference, count]) => `${reference} ×${count}`);
  const shown = dup.length ? `, ${dup.length} duplicated (${dup.slice(0, 3).join(', ')}${dup.length > 3 ? ', …' : ''})` : '';
  return `remote ${tally.records}${tally.records === expected ? '' : ` ≠ ${expected}`}${shown}`;
}

/** How a child run ended, in a few words: `exit 1: app lock … was lost`. */
function describeEnd(run: IdemChildResult): string {
  if (run.signal) return `ended by ${run.signal}`;
  const message = typeof run.summary?.msg === 'string' ? run.summary.msg : run.stderr.trim().split('\n')[0];
  return `exit ${run.code}${message ? `: ${message.slice(0, 120)}` : ''}`;
}

/** Up to `count` distinct whole numbers from 1 to `max`, ascending, drawn with `random`. */
function pickDistinct(max: number, count: number, random: () => number): number[] {
  if (max <= count) return Array.from({ length: max }, (_, i) => i + 1);
  const picked = new Set<number>();
  while (picked.size < count) picked.add(1 + Math.floor(random() * max));
  return [...picked].sort((a, b) => a - b);
}
