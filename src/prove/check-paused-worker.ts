import { startIdemChild } from '../child-process/start-idem-child.ts';
import { countLiveClaims } from '../ledger/ledger-reports.ts';
import { WORK_WORKER_PREFIX } from '../post/post-worker.ts';
import { describeChildEnd } from './describe-child-end.ts';
import { endAsAnOperatorWould } from './end-as-an-operator-would.ts';
import { exitDisagreesWithJobRun } from './exit-disagrees-with-job-run.ts';
import { requireDetectedDuplicates } from './require-detected-duplicates.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';

/** The children's claim time to live in this check, in ms: short, so the run takes the paused worker's items over soon. */
const CLAIM_TTL_MS = 1_000;
/** Every write is answered this much later: both processes are mid-post long enough for the worker to claim items. */
const WRITE_LATENCY_MS = 50;

/**
 * An `idem work` process sharing the run's post stage is stopped (SIGSTOP: a frozen VM, a
 * stop-the-world pause) as one of the destinations receives a write while it holds claimed items,
 * past its claims' time to live, while the run takes its items over; it is resumed (SIGCONT) once
 * the run has ended. Whatever it had in flight must not reach a destination twice: its claims ran
 * out by its own clock, an item it was sending under mark-before-send went to review and its late
 * outcome is refused. Under check-before-create a request it had passed its last claim check for
 * goes out when it resumes, after the run's look-up: a duplicate the strategy cannot prevent, which
 * must be detected (see `requireDetectedDuplicates`). The run may meet the database kept locked by
 * the stopped worker (SQLite: its write transaction) and exit 75; it is then run again, as a
 * scheduler would. Both processes' exit codes must agree with `job_runs`, and once items in
 * review are settled as an operator would, every record is at each destination once. Short
 * timeouts, settle delay and takeover grace, so the takeover comes within seconds. `skip` when
 * the worker never held an item (a run of few items claims them all in its first batch).
 */
export async function checkPausedWorker(c: ProveCase, reference: ProveReference): Promise<ProveCheckOutcome> {
  c.standIns.addFaults([{ kind: 'late-commit', ms: WRITE_LATENCY_MS, count: 1_000_000 }]);
  const destinations = JSON.parse(c.standIns.env) as Record<string, { http?: Record<string, unknown> }>;
  for (const settings of Object.values(destinations)) Object.assign(settings, { settleDelayMs: 200, http: { ...settings.http, connectTimeoutMs: 1_000, headersTimeoutMs: 1_000 } });
  const env = c.env({ IDEM_DESTINATIONS: JSON.stringify(destinations), IDEM_CLAIM_TTL_MS: String(CLAIM_TTL_MS), IDEM_TAKEOVER_GRACE_MS: '200' });
  const workArgs = ['work', c.pipeline.name, ...c.runArgs.slice(2, 4), '--poll-ms', '20', '--wait-ms', '60000'];
  const worker = startIdemChild(workArgs, env);
  // Stopped on a write, then kept stopped only if it holds claimed items (else let go, until the next write).
  let deciding = false;
  const stopped = new Promise<boolean>((resolve) => {
    c.standIns.onPost = () => {
      if (deciding) return;
      deciding = true;
      worker.child.kill('SIGSTOP');
      c.withDatabase((db) => countLiveClaims(db, { jobName: c.pipeline.name, runKey: c.runKey.value, prefix: WORK_WORKER_PREFIX })).then(
        (held) => {
          if (held > 0) {
            c.standIns.onPost = undefined;
            resolve(true);
            return;
          }
          worker.child.kill('SIGCONT');
          deciding = false;
        },
        () => resolve(false),
      );
    };
  });
  const run = startIdemChild(c.runArgs, env);
  const paused = await Promise.race([stopped, run.done.then(() => false)]);
  c.standIns.onPost = undefined;
  if (!paused) worker.child.kill('SIGCONT');
  const ran = await run.done;
  // What the run's exit code must agree with: job_runs as it left it, before the worker goes on.
  const statusAfterRun = (await c.jobRun())?.status;
  worker.child.kill('SIGCONT');
  const resumed = await worker.done;
  // A run of few items claims them all in its first batch: there is nothing a worker could hold.
  if (!paused) return { result: 'skip', counts: `the worker held no claimed item on any write before the run ${describeChildEnd(ran)}: nothing to pause` };
  const said = [`exit ${ran.code ?? ran.signal} + worker ${resumed.code ?? resumed.signal}`];
  const status = (await c.jobRun())?.status;
  const disagrees = exitDisagreesWithJobRun(ran, statusAfterRun) ?? exitDisagreesWithJobRun(resumed, status);
  if (disagrees) return { result: 'fail', counts: `${said[0]}: ${disagrees}` };
  // Stopped between its last claim check and its request, the worker sends once resumed: under
  // check-before-create, after the run's look-up found nothing and created the record.
  if (c.standIns.tally().duplicates.length > 0) return requireDetectedDuplicates(c, reference, env, said);
  return endAsAnOperatorWould(c, reference, ran, 1, said);
}
