import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { idemBinPath } from '../child-process/idem-bin-path.ts';
import type { RunContext } from './run-context.ts';
import { runPipeline } from './run-pipeline.ts';
import type { RunRequest } from './run-request.ts';
import type { RunResult } from './run-result.ts';

/**
 * Starts `count` `idem work` child processes for a run key (same Node, same environment, same
 * project), their logs on this process's stdout and stderr.
 */
function startPostWorkers(count: number, pipeline: string, runKey: string, log: Logger): ChildProcess[] {
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    children.push(spawn(process.execPath, [idemBinPath(), 'work', pipeline, '--run-key', runKey], { stdio: ['ignore', 'inherit', 'inherit'] }));
  }
  log.info({ pipeline, runKey, stage: 'post', workers: count + 1 }, `post stage shared by ${count + 1} processes: this run and ${count} idem work`);
  return children;
}

/** The signals that stop a run (a scheduler's SIGTERM, Ctrl-C, a closed terminal). */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * Passes a stop signal on to the `idem work` children, then stops this process by it as it would
 * have stopped without the handler: stopping the run stops its workers (a scheduler or `kill`
 * signals only the run's own pid). Their claims lapse and a rerun takes the items over.
 * @returns a function that removes the handlers.
 */
function forwardStopSignals(children: readonly ChildProcess[]): () => void {
  const forward = (signal: NodeJS.Signals): void => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    remove();
    process.kill(process.pid, signal);
  };
  const remove = (): void => {
    for (const signal of STOP_SIGNALS) process.removeListener(signal, forward);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, forward);
  return remove;
}

/** Waits for every child to exit; logs those that ended other than done or needing an operator. */
async function waitForPostWorkers(children: readonly ChildProcess[], log: Logger): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      const [code, signal] = (child.exitCode !== null || child.signalCode !== null ? [child.exitCode, child.signalCode] : await once(child, 'exit')) as [number | null, string | null];
      if (code !== EXIT_CODES.ok && code !== EXIT_CODES.needsOperator) log.warn({ pid: child.pid, code, signal }, `idem work (pid ${child.pid}) exited ${code ?? signal}`);
    }),
  );
}

/**
 * `idem run --workers N`: runs the pipeline (see `runPipeline`) with its post stage shared by
 * `workers - 1` `idem work` child processes on this host, started when the post stage begins
 * (docs/scaling.md). Waits for every child before it returns; a stop signal to this process
 * stops them too. With `workers` 1 it is `runPipeline` alone.
 */
export async function runWithPostWorkers(ctx: RunContext, request: RunRequest, workers: number): Promise<RunResult> {
  if (workers <= 1) return runPipeline(ctx, request);
  const children: ChildProcess[] = [];
  const stopForwarding = forwardStopSignals(children);
  try {
    const onPostStage = (runKey: string): void => {
      children.push(...startPostWorkers(workers - 1, request.pipeline.name, runKey, ctx.logger));
    };
    const result = await runPipeline(ctx, request, { onPostStage });
    await waitForPostWorkers(children, ctx.logger);
    return result;
  } finally {
    stopForwarding();
  }
}
