import type { JobRun } from './job-run.ts';

/** Whether a `started` run looks dead: no heartbeat for longer than `staleMs` (the lock lease, say). */
export function isStuck(run: JobRun, nowMs: number, staleMs: number): boolean {
  if (run.status !== 'started') return false;
  return nowMs - Date.parse(run.heartbeatAt ?? run.startedAt) > staleMs;
}
