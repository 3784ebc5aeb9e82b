import { EXIT_CODES } from '../outcome/outcome.ts';
import { runIdemChild, type IdemChildOptions, type IdemChildResult } from './start-idem-child.ts';

/** How long {@link rerunWhileLocked} keeps trying, and how often. */
export interface RerunWhileLockedOptions {
  /** How long to keep trying before returning the last 75, in ms. @defaultValue 15000 */
  readonly maxWaitMs?: number;
  /** Pause between tries, in ms. @defaultValue 300 */
  readonly pauseMs?: number;
}

/**
 * Runs a command (`run`), and again every `pauseMs` while it exits 75: after a SIGKILL on SQLite
 * the app lock frees itself only when the dead run's lease expires.
 */
export async function rerunWhileLocked(run: () => Promise<IdemChildResult>, options: RerunWhileLockedOptions = {}): Promise<IdemChildResult> {
  const deadline = performance.now() + (options.maxWaitMs ?? 15_000);
  let result = await run();
  while (result.code === EXIT_CODES.retryLater && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 300));
    result = await run();
  }
  return result;
}

/** Runs `idem …args` as a child (see `runIdemChild`), again while it exits 75 (see {@link rerunWhileLocked}). */
export function runIdemChildWhenUnlocked(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  options: IdemChildOptions & RerunWhileLockedOptions = {},
): Promise<IdemChildResult> {
  return rerunWhileLocked(() => runIdemChild(args, env, options), options);
}
