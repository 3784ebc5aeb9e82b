import { IdemError } from './idem-error.ts';

/**
 * A stop signal (SIGTERM, SIGINT, SIGHUP) asked the process to stop, and it did at its next
 * stage boundary, once the work in flight had finished: outcome `stopped` (exit 75, retry
 * later). `job_runs` records the attempt `stopped` with this message as its reason; a plain
 * rerun resumes (docs/operating.md, "Stopping a run").
 */
export class StoppedError extends IdemError {
  /** The signal that asked for the stop, e.g. `SIGTERM`. */
  readonly signal: NodeJS.Signals;

  constructor(signal: NodeJS.Signals) {
    super(`stopped by ${signal}: the work in flight finished, nothing new was started; a rerun resumes`, { code: 'STOPPED', outcome: 'stopped' });
    this.signal = signal;
  }
}
