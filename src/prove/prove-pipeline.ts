import pMap from 'p-map';
import { UsageError } from '../errors/usage-error.ts';
import { checkCleanRuns } from './check-clean-runs.ts';
import type { ProveCheck, ProveCheckOutcome } from './prove-check.ts';
import { withProveCase, type ProveTarget } from './prove-case.ts';
import { listCrashChecks, type CrashCheck } from './list-crash-checks.ts';
import { listUpdateChecks } from './list-update-checks.ts';
import { scratchDatabases } from './scratch-databases.ts';
import { timeCheck } from './time-check.ts';

/** Settings of one proof besides the pipeline and run key. */
export interface ProveOptions extends Omit<ProveTarget, 'databases'> {
  /** A server to create scratch databases on (see `scratchDatabases`); undefined = temp SQLite files. */
  readonly serverUrl: string | undefined;
  /** Seed of the random kill points in the post stage; the same seed picks the same points. */
  readonly seed: number;
  /** Checks run at once, each on its own scratch database and stand-ins. @defaultValue 2 */
  readonly concurrency?: number;
  /**
   * Run only the crash and update checks whose name contains one of these texts (a proof of one
   * fix, a rerun of one failed line); the clean runs they compare with always run. A text that
   * matches no check of the proof (a typo) throws `UsageError` once the clean runs have listed
   * them, before any other check runs.
   * @defaultValue every check
   */
  readonly only?: readonly string[];
  /** Called as each check ends (progress for a person watching). */
  readonly onCheck?: (check: ProveCheck) => void;
}

/**
 * `idem prove`: runs a pipeline as the scheduler would (child processes of the real CLI) against
 * throwaway databases and in-process stand-ins for its destinations, and checks that it is safe to
 * run twice:
 * 1. a clean run (the reference rows and remote records);
 * 2. the same run again is a no-op that sends nothing; each destination's request bodies, for a
 *    create and an update of every record, hold no `undefined` field and pass the stand-in's
 *    description where it has one (see `checkRequestBodies`);
 * 3. SIGKILL at each failpoint, then a rerun: the same rows, each record once at each destination,
 *    `job_runs` completed with 2 attempts, no staging rows and no lock left (a failpoint the run
 *    never reaches fails its check);
 * 4. the same after a SIGKILL once the Nth POST reached a destination, for random N (seeded);
 * 5. two runs at once: one exits 75, the other completes;
 * 6. a run stopped (SIGSTOP) mid-post past its lease while a second run goes on, then resumed:
 *    it sends nothing more (see `checkPausedPastLease`);
 * 7. a gateway's 504 after the destination applied a POST (see `checkGatewayAfterApply`);
 * 8. a 409 and a 500 answer to the first write: the exit code agrees with `job_runs`, and each
 *    record ends once (see `checkErrorAnswer`);
 * 9. a write applied after the settle delay: once, or a duplicate `--force-reconcile` reports
 *    (see `checkLateApply`);
 * 10. the app lock's session killed mid-post (see `checkKilledLockSession`), an `idem work` paused
 *    past its claims (see `checkPausedWorker`), and idempotency keys honoured where the strategy
 *    relies on them (see `checkIdempotencyKeySupport`);
 * 11. a `--force` rerun inserts, updates and sends nothing;
 * 12. the source with one value changed (the kind's `changedCopy`): one row updated, each
 *    destination's record updated exactly once, none created (see `checkCleanUpdate`); a kind
 *    without the capability makes it a `skip` saying the update path was not proved;
 * 13. 3–7 again for the run of the changed source (see `listUpdateChecks`).
 * 1, 2, 11 and 12 share one database (see `checkCleanRuns`); 3–10 and 13 each get a fresh scratch
 * database and stand-ins, and run `concurrency` at a time.
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
  const { onCheck } = options;
  const { first, force, update, updateReference, reference } = await checkCleanRuns(options, onCheck);
  if (!reference) {
    const notRun = async (): Promise<ProveCheckOutcome> => ({ result: 'fail', counts: 'not run: they compare with a clean run, and there is none' });
    return [...first, await timeCheck('crash, rerun and overlap checks', notRun, onCheck)];
  }
  const crashChecks = listCrashChecks(options.pipeline, reference, options.seed);
  const updateChecks = updateReference ? listUpdateChecks(options.pipeline, reference, updateReference) : [];
  const only = options.only;
  const listed = [...first, ...(force ? [force] : []), ...(update ? [update] : []), ...crashChecks, ...updateChecks].map((check) => check.name);
  const unmatched = only?.filter((text) => !listed.some((name) => name.includes(text))) ?? [];
  if (unmatched.length > 0) {
    throw new UsageError(`--only ${unmatched.map((text) => JSON.stringify(text)).join(', ')} matches no check of this proof; its checks: ${listed.join('; ')}`);
  }
  const chosen = (checks: readonly CrashCheck[]) => (only ? checks.filter((check) => only.some((text) => check.name.includes(text))) : checks);
  const crash = chosen(crashChecks);
  const rest = await pMap(
    [...crash, ...chosen(updateChecks)],
    (check) =>
      'skip' in check
        ? timeCheck(check.name, async () => ({ result: 'skip', counts: check.skip }), onCheck)
        : timeCheck(check.name, () => withProveCase(options, check.run), onCheck),
    { concurrency: options.concurrency ?? 2 },
  );
  return [...first, ...rest.slice(0, crash.length), ...(force ? [force] : []), ...(update ? [update] : []), ...rest.slice(crash.length)];
}
