import { EXIT_CODES } from '../outcome/outcome.ts';
import { runIdemChild, type IdemChildOptions, type IdemChildResult } from './start-idem-child.ts';

/**
 * Runs `idem …args` (see `runIdemChild`), and again every `pauseMs` while it exits 75: after a
 * SIGKILL on SQLite the app lock frees itself only when the dead run's lease expires.
 * @param options.maxWaitMs how long to keep trying before returning the last 75. @defaultValue 15000
 * @param options.pauseMs pause between tries, in ms. @defaultValue 300
 */
export async function runIdemChildWhenUnlocked(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  options: IdemChildOptions & { maxWaitMs?: number; pauseMs?: number } = {},
): Promise<IdemChildResult> {
  const deadline = performance.now() + (options.maxWaitMs ?? 15_000);
  let result = await runIdemChild(args, env, options);
  while (result.code === EXIT_CODES.retryLater && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 300));
    result = await runIdemChild(args, env, options);
  }
  return result;
}
