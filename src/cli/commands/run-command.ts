import { loadConfig } from '../../config/load-config.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { loadPipeline } from '../../pipeline/load-pipeline.ts';
import { Failpoints } from '../../runner/failpoints.ts';
import { runDates } from '../../runner/run-dates.ts';
import { formatPlan } from '../../runner/format-plan.ts';
import { runPipeline } from '../../runner/run-pipeline.ts';
import { businessDatesBetween, resolveBusinessDate } from '../../runs/business-date.ts';
import { lastCompletedDate } from '../../runs/job-runs-queries.ts';
import { dateRunKey, fileRunKey } from '../../runs/run-key.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { idemBinPath } from '../../prove/idem-bin-path.ts';
import { DateTime } from 'luxon';
import { createHeartbeat } from '../../heartbeat/heartbeat.ts';
import { withSession } from '../session.ts';
import { triggeredBy } from '../triggered-by.ts';

/** The flags of `idem run`. */
export interface RunCommandOptions {
  readonly date?: string;
  readonly file?: string;
  readonly catchUp?: boolean;
  readonly force?: boolean;
  readonly triggeredBy?: string;
  readonly heartbeatUrl?: string;
  readonly batchRows?: number;
  readonly dryRun?: boolean;
  readonly forceReconcile?: boolean;
  /** Processes sharing the post stage: this run and `workers - 1` `idem work` children. @defaultValue 1 */
  readonly workers?: number;
}

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

/** Waits for every child to exit; logs those that did not exit 0 or 3. */
async function waitForPostWorkers(children: readonly ChildProcess[], log: Logger): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      const [code, signal] = (child.exitCode !== null || child.signalCode !== null ? [child.exitCode, child.signalCode] : await once(child, 'exit')) as [number | null, string | null];
      if (code !== 0 && code !== 3) log.warn({ pid: child.pid, code, signal }, `idem work (pid ${child.pid}) exited ${code ?? signal}`);
    }),
  );
}

/** `idem run PIPELINE --date D | --file PATH | --catch-up`: returns the exit code. */
export async function runCommand(name: string, options: RunCommandOptions): Promise<number> {
  const chosen = [options.date !== undefined && '--date', options.file !== undefined && '--file', options.catchUp && '--catch-up'].filter(Boolean);
  if (chosen.length > 1) throw new UsageError(`use one of --date, --file or --catch-up (got ${chosen.join(' and ')})`);
  if (options.dryRun && options.catchUp) throw new UsageError('--dry-run plans one run key: use it with --date or --file');
  if (chosen.length === 0) throw new UsageError('missing required flag --date (expected YYYY-MM-DD) or --file PATH (or --catch-up)');
  if ((options.workers ?? 1) > 1 && (options.catchUp || options.dryRun)) throw new UsageError('--workers shares the post stage of one run: use it with --date or --file, without --dry-run');
  const config = loadConfig();
  const failpoints = new Failpoints(config.failpoints);
  const pipeline = await loadPipeline(config.projectDir, name);
  const now = config.now ?? new Date();
  const runKey = options.file !== undefined ? await fileRunKey(options.file) : undefined;
  const date = options.date === undefined ? undefined : resolveBusinessDate(options.date, pipeline.timeZone, now);

  return withSession(
    async (session) => {
      const request = {
        pipeline,
        force: options.force ?? false,
        dryRun: options.dryRun ?? false,
        forceReconcile: options.forceReconcile ?? false,
        triggeredBy: triggeredBy(options.triggeredBy),
        ...(options.batchRows ? { batchRows: options.batchRows } : {}),
        ...(options.heartbeatUrl ?? config.heartbeats[pipeline.name] ? { heartbeatUrl: options.heartbeatUrl ?? config.heartbeats[pipeline.name] } : {}),
      };
      // Progress bars on stderr, only for a person at a terminal.
      const progress = process.stderr.isTTY ? (await import('../../progress/terminal-progress.ts')).terminalProgress : undefined;
      const ctx = { ...session, failpoints, ...(progress ? { progress } : {}) };
      if (options.catchUp) {
        const last = await lastCompletedDate(session.db, pipeline.name);
        if (last === undefined) throw new UsageError(`--catch-up needs a completed business date to start after; run one with --date first, or use idem backfill`);
        const yesterday = resolveBusinessDate('yesterday', pipeline.timeZone, now);
        const first = DateTime.fromISO(last, { zone: 'UTC' }).plus({ days: 1 }).toISODate()!;
        const dates = first > yesterday ? [] : businessDatesBetween(first, yesterday);
        session.logger.info({ pipeline: pipeline.name, stage: 'catch-up', lastCompleted: last, dates: dates.length, from: dates[0], to: dates.at(-1) }, dates.length ? `catching up ${dates.length} date(s) after ${last}` : `nothing to catch up: the last completed date is ${last}, yesterday in ${pipeline.timeZone} is ${yesterday}`);
        // Nothing to run is still a healthy night for the monitor.
        if (dates.length === 0 && request.heartbeatUrl) await createHeartbeat(request.heartbeatUrl, { runId: randomUUID(), log: session.logger }).success();
        return (await runDates(ctx, request, dates)).exitCode;
      }
      if (date !== undefined && date !== options.date) session.logger.info({ pipeline: pipeline.name, date: options.date, resolved: date, timeZone: pipeline.timeZone }, `--date ${options.date} is ${date} in ${pipeline.timeZone}`);
      const children: ChildProcess[] = [];
      const workers = options.workers ?? 1;
      const onPostStage = workers > 1 ? (key: string) => children.push(...startPostWorkers(workers - 1, pipeline.name, key, session.logger)) : undefined;
      const stopForwarding = workers > 1 ? forwardStopSignals(children) : () => undefined;
      try {
        const result = await runPipeline(ctx, { ...request, runKey: runKey ?? dateRunKey(date!) }, onPostStage ? { onPostStage } : {});
        await waitForPostWorkers(children, session.logger);
        if (result.plan) process.stdout.write(formatPlan(result.plan));
        return result.exitCode;
      } finally {
        stopForwarding();
      }
    },
    { config },
  );
}
