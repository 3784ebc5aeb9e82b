import type { IdemChildResult } from '../child-process/start-idem-child.ts';

/** How a child run ended, in a few words for the prove table: `exit 1: app lock … was lost`, `ended by SIGKILL`. */
export function describeChildEnd(run: IdemChildResult): string {
  if (run.signal) return `ended by ${run.signal}`;
  const message = typeof run.summary?.msg === 'string' ? run.summary.msg : run.stderr.trim().split('\n')[0];
  return `exit ${run.code}${message ? `: ${shortened(message)}` : ''}`;
}

/** Long text (a driver's error behind its statement) as its start and its end, where the cause is. */
function shortened(text: string): string {
  return text.length <= 160 ? text : `${text.slice(0, 70)} … ${text.slice(-85)}`;
}
