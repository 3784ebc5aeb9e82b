import { hostname, userInfo } from 'node:os';

/**
 * Who started an attempt of a run key, as `job_run_attempts` records it: `triggeredBy` as
 * `job_runs.triggered_by` holds it (`--triggered-by`, else `IDEM_TRIGGERED_BY`, a scheduler's
 * identity, else the OS user), the process that ran it (OS user, host, pid) and its command line.
 */
export interface AttemptTrigger {
  readonly triggeredBy: string;
  /** The OS user running the process; null where the OS names none (a uid without a passwd entry). */
  readonly osUser: string | null;
  readonly host: string;
  readonly pid: number;
  /** The command line with its flags, `idem run orders --date 2026-01-01 --force`, secrets redacted; null: not started from the command line. */
  readonly command: string | null;
}

/** The OS user running this process, or null where the OS names none. */
export function osUser(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

/** The {@link AttemptTrigger} of an attempt this process starts. */
export function attemptTrigger(triggeredBy: string, command: string | undefined): AttemptTrigger {
  return { triggeredBy, osUser: osUser(), host: hostname(), pid: process.pid, command: command ?? null };
}
