import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { idemBinPath } from '../child-process/idem-bin-path.ts';
import { commandIo } from '../command-io/command-io.ts';
import type { RunContext } from './run-context.ts';
import { runPipeline } from './run-pipeline.ts';
import type { RunRequest } from './run-request.ts';
import type { RunResult } from './run-result.ts';

/**
 * Starts `count` `idem work` child processes for a run key (same Node, the command's environment
 * and working directory: see `commandIo`), their logs on this process's stdout and stderr. Each leads a process group of its
 * own, so a terminal's Ctrl-C (sent to the whole foreground group) reaches them once, passed on
 * by this process (see {@link runWithPostWorkers}), not twice, which would stop them at once.
 */
function startPostWorkers(count: number, pipeline: string, runKey: string, log: Logger): ChildProcess[] {
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    const { env, cwd } = commandIo();
    children.push(spawn(process.execPath, [idemBinPath(), 'work', pipeline, '--run-key', runKey], { env, cwd, stdio: ['ignore', 'inherit', 'inherit'], detached: true }));
  }
  log.info({ pipeline, runKey, stage: 'post', workers: count + 1 }, `post stage shared by ${count + 1} processes: this run and ${count} idem work`);
  return children;
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
 * (docs/scaling.md). Waits for every child before it returns. Every stop signal this process
 * receives (`ctx.stop`) is passed on to the children, so a polite stop stops them politely too
 * (each releases its unsent claims and exits 75), and a second signal stops them at once. With
 * `workers` 1 it is `runPipeline` alone.
 */
export async function runWithPostWorkers(ctx: RunContext, request: RunRequest, workers: number): Promise<RunResult> {
  if (workers <= 1) return runPipeline(ctx, request);
  const children: ChildProcess[] = [];
  const stopForwarding = ctx.stop?.onSignal((signal) => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
  try {
    const onPostStage = (runKey: string): void => {
      if (ctx.stop?.signal.aborted) return;
      children.push(...startPostWorkers(workers - 1, request.pipeline.name, runKey, ctx.logger));
    };
    const result = await runPipeline(ctx, request, { onPostStage });
    await waitForPostWorkers(children, ctx.logger);
    return result;
  } finally {
    stopForwarding?.();
  }
}
