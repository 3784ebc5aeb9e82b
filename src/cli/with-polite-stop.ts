import type { Logger } from 'pino';
import { exitCodeOf } from '../outcome/outcome.ts';
import { PoliteStop, type HardStopReason } from '../stop/polite-stop.ts';

/**
 * Runs `work` (a command that runs a pipeline or posts: `idem run`, `backfill`, `work`,
 * `repost`) with a {@link PoliteStop} listening to SIGTERM, SIGINT and SIGHUP: the first is
 * logged and asks the work to stop at its next boundary (it ends `stopped`, exit 75); a second
 * signal, or the end of `graceMs`, writes one `stage: 'summary'` line and exits 75 at once,
 * whatever is in flight (the database rolls back an open transaction; a rerun is as safe as
 * after a kill). The handlers are removed when `work` ends.
 */
export async function withPoliteStop<T>(log: Logger, graceMs: number, work: (stop: PoliteStop) => Promise<T>): Promise<T> {
  const stop = new PoliteStop({
    graceMs,
    onStop: (signal) =>
      log.warn({ stage: 'stop', signal, graceMs }, `${signal} received: stopping politely (no new claims or requests; the work in flight has ${graceMs} ms to finish); a second signal stops at once`),
    onHardStop: (reason) => hardStop(log, reason),
  }).install();
  try {
    return await work(stop);
  } finally {
    stop.uninstall();
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
