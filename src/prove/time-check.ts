import type { ProveCheck, ProveCheckOutcome } from './prove-check.ts';

/**
 * Runs one check and names and times what it found; an error it throws is its failure
 * (`error: <message>`). `onCheck` sees the check as it ends (progress for a person watching).
 */
export async function timeCheck(name: string, work: () => Promise<ProveCheckOutcome>, onCheck?: (check: ProveCheck) => void): Promise<ProveCheck> {
  const started = performance.now();
  let outcome: ProveCheckOutcome;
  try {
    outcome = await work();
  } catch (error) {
    outcome = { result: 'fail', counts: `error: ${(error as Error).message}` };
  }
  const check = { name, ...outcome, ms: Math.round(performance.now() - started) };
  onCheck?.(check);
  return check;
}
