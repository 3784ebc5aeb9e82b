import type { Logger } from 'pino';
import { exitCodeOf } from '../outcome/outcome.ts';
import { PoliteStop, type HardStopReason } from '../stop/polite-stop.ts';

/** The process's polite stop, installed by {@link listenForStopSignals}. */
let processStop: PoliteStop | undefined;

/**
 * Starts listening to SIGTERM, SIGINT and SIGHUP as soon as `main` knows the command is one that
 * stops politely, so a signal while the command is still starting (loading the pipeline, opening
 * the database) is acted on once it can be (see {@link withPoliteStop}), not fatal.
 * @returns a function that stops listening (for a command that ended before it got that far).
 */
export function listenForStopSignals(): () => void {
  processStop ??= new PoliteStop().install();
  return () => {
    processStop?.uninstall();
    processStop = undefined;
  };
}

/**
 * Runs `work` (a command that runs a pipeline or posts: `idem run`, `backfill`, `work`,
 * `repost`, `quarantine --replay`) under the process's {@link PoliteStop}, armed with `graceMs`: the first SIGTERM,
 * SIGINT or SIGHUP (also one before this was called) is logged and asks the work to stop at its
 * next boundary (it ends `stopped`, exit 75); a second signal, or the end of `graceMs`, writes one
 * `stage: 'summary'` line and exits 75 at once, whatever is in flight (the database rolls back an
 * open transaction; a rerun is as safe as after a kill). `main` removes the handlers when the command ends.
 */
export async function withPoliteStop<T>(log: Logger, graceMs: number, work: (stop: PoliteStop) => Promise<T>): Promise<T> {
  const own = processStop === undefined;
  const stop = processStop ?? new PoliteStop().install();
  stop.arm({
    graceMs,
    onStop: (signal) =>
      log.warn({ stage: 'stop', signal, graceMs }, `${signal} received: stopping politely (no new claims or requests; the work in flight has ${graceMs} ms to finish); a second signal stops at once`),
    onHardStop: (reason) => hardStop(log, reason),
  });
  try {
    return await work(stop);
  } finally {
    // The process's own stop listens on until `main` ends (the database is still to be closed).
    if (own) stop.uninstall();
  }
}

/** Stops the process at once: one summary line (pino writes stderr synchronously), then exit 75. */
function hardStop(log: Logger, reason: HardStopReason): void {
  const exitCode = exitCodeOf('stopped');
  const why = reason.kind === 'second-signal' ? `a second ${reason.signal}` : `the stop's grace of ${reason.graceMs} ms ended`;
  log.warn(
    { stage: 'summary', outcome: 'stopped', exitCode, atOnce: true, ...(reason.kind === 'second-signal' ? { signal: reason.signal } : { graceMs: reason.graceMs }) },
    `stopped at once by ${why}: the work in flight was cut off, as by a kill (job_runs says started; an open transaction is rolled back); a rerun resumes`,
  );
  process.exit(exitCode);
}
