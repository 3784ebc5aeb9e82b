import { userInfo } from 'node:os';
import { Command, CommanderError, Option } from 'commander';
import type { Logger } from 'pino';
import { loadConfig } from '../config/load-config.ts';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { Database } from '../db/database.ts';
import { openDatabase } from '../db/open-database.ts';
import { IdemError } from '../errors/idem-error.ts';
import { UsageError } from '../errors/usage-error.ts';
import { createLogger } from '../logging/create-logger.ts';
import { assertMigrated, migrateLatest } from '../migration/migrator.ts';
import { listPipelineNames, loadPipeline } from '../pipeline/load-pipeline.ts';
import { Failpoints } from '../runner/failpoints.ts';
import { runPipeline } from '../runner/run-pipeline.ts';
import type { LedgerItem } from '../post/ledger-item.ts';
import { selectItemsNeedingOperator } from '../post/ledger-queries.ts';
import { markReviewItemPosted, retryReviewItem } from '../post/resolve-review-item.ts';
import { parseBusinessDate } from '../runs/business-date.ts';
import { dateRunKey, fileRunKey, type RunKey } from '../runs/run-key.ts';

/** Exit codes (DESIGN.md): the scheduler's contract. */
export const EXIT = { ok: 0, failed: 1, usage: 2, needsOperator: 3, lockHeld: 75 } as const;

interface Session {
  config: ResolvedConfig;
  logger: Logger;
  db: Database;
}

async function openSession(config: ResolvedConfig = loadConfig()): Promise<Session> {
  const logger = await createLogger({ level: config.logLevel });
  return { config, logger, db: await openDatabase(config) };
}

function defaultTriggeredBy(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

async function resolveRunKey(options: { date?: string; file?: string }): Promise<RunKey> {
  if (options.date !== undefined && options.file !== undefined) throw new UsageError('use either --date or --file, not both');
  if (options.file !== undefined) return fileRunKey(options.file);
  if (options.date === undefined) throw new UsageError('missing required flag --date (expected YYYY-MM-DD) or --file PATH');
  return dateRunKey(parseBusinessDate(options.date));
}

/**
 * The `idem` command line. Parses flags strictly, maps them onto library calls and returns the
 * exit code; it holds no ETL logic of its own.
 */
export async function main(argv: readonly string[]): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('idem')
    .description('ETL sync pipelines that are safe to run twice')
    .exitOverride()
    .showHelpAfterError('(run idem --help for usage)');

  program
    .command('run')
    .description('run one pipeline for one business date or one file')
    .argument('<pipeline>', 'pipeline name (see idem pipelines)')
    .option('--date <YYYY-MM-DD>', "business date, in the pipeline's time zone")
    .option('--file <path>', 'a source file; its name and content hash are the run key')
    .option('--force', 'run a completed run key again', false)
    .option('--triggered-by <who>', 'recorded in job_runs.triggered_by (default: the OS user)')
    .addOption(new Option('--batch-rows <n>', 'rows per staging batch').argParser((v) => positiveInt(v, '--batch-rows')).hideHelp())
    .action(async (name: string, options: { date?: string; file?: string; force: boolean; triggeredBy?: string; batchRows?: number }) => {
      const config = loadConfig();
      const runKey = await resolveRunKey(options);
      const pipeline = await loadPipeline(config.projectDir, name);
      const session = await openSession(config);
      try {
        await assertMigrated(session.db, config.projectDir);
        const result = await runPipeline({ ...session, failpoints: new Failpoints(config.failpoints) }, {
          pipeline,
          runKey,
          force: options.force,
          triggeredBy: options.triggeredBy ?? defaultTriggeredBy(),
          ...(options.batchRows ? { batchRows: options.batchRows } : {}),
        });
        exitCode = result.exitCode;
      } finally {
        await session.db.close();
      }
    });

  program
    .command('migrate')
    .description('apply framework and pipeline migrations up to the latest')
    .action(async () => {
      const session = await openSession();
      try {
        const applied = await migrateLatest(session.db, session.config.projectDir);
        session.logger.info({ database: session.db.description, applied }, applied.length ? `applied ${applied.length} migration(s)` : 'already up to date');
      } finally {
        await session.db.close();
      }
    });

  program
    .command('pipelines')
    .description('list the pipeline definitions found in pipelines/')
    .action(async () => {
      const { projectDir } = loadConfig();
      for (const name of listPipelineNames(projectDir)) {
        const pipeline = await loadPipeline(projectDir, name);
        process.stdout.write(`${name}\t${pipeline.timeZone}\t${pipeline.description}\n`);
      }
    });

  program
    .command('review')
    .description('list post ledger items in review or failed, with the commands that resolve them')
    .argument('<pipeline>', 'pipeline name')
    .option('--mark-posted <reference>', 'the record is at the destination: mark its item posted (needs --remote-ref)')
    .option('--remote-ref <id>', "the destination's id of the record, with --mark-posted")
    .option('--retry <reference>', 'the record is not at the destination: send it again on the next run')
    .option('--destination <name>', 'which destination, when several hold the reference')
    .action(async (name: string, options: { markPosted?: string; remoteRef?: string; retry?: string; destination?: string }) => {
      const config = loadConfig();
      if (!listPipelineNames(config.projectDir).includes(name)) await loadPipeline(config.projectDir, name);
      if (options.markPosted !== undefined && options.retry !== undefined) throw new UsageError('use either --mark-posted or --retry, not both');
      if (options.markPosted !== undefined && options.remoteRef === undefined) throw new UsageError('--mark-posted needs --remote-ref <id>');
      const session = await openSession(config);
      try {
        await assertMigrated(session.db, config.projectDir);
        const ref = { jobName: name, ...(options.destination ? { destination: options.destination } : {}), nowIso: new Date().toISOString() };
        if (options.markPosted !== undefined) {
          const { item, runCompleted } = await markReviewItemPosted(session.db, { ...ref, reference: options.markPosted, remoteReference: options.remoteRef! });
          process.stdout.write(`${item.sourceReference} marked posted at ${item.destination} as ${options.remoteRef}${runCompleted ? `; run ${item.runKey} is now completed` : ''}\n`);
        } else if (options.retry !== undefined) {
          const item = await retryReviewItem(session.db, { ...ref, reference: options.retry });
          process.stdout.write(`${item.sourceReference} will be sent again; now run: idem run ${name} ${runKeyFlag(item.runKey)}\n`);
        } else {
          process.stdout.write(formatReview(name, await selectItemsNeedingOperator(session.db, { jobName: name })));
        }
      } finally {
        await session.db.close();
      }
    });

  program
    .command('sandbox-api')
    .description('serve the sandbox accounting API (for development, the demo and tests)')
    .option('--port <n>', 'port to listen on (0: a free one)', (v) => nonNegativeInt(v, '--port'), 0)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--latency-ms <n>', 'fixed latency before every answer', (v) => nonNegativeInt(v, '--latency-ms'), 0)
    .option('--no-idempotency-keys', 'ignore Idempotency-Key headers (to exercise the other strategies)')
    .action(async (options: { port: number; host: string; latencyMs: number; idempotencyKeys: boolean }) => {
      const { startSandboxApi } = await import('../sandbox/start-sandbox-api.ts');
      const api = await startSandboxApi({ port: options.port, host: options.host, latencyMs: options.latencyMs, idempotencyKeys: options.idempotencyKeys });
      process.stdout.write(`sandbox accounting API listening on ${api.url}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await api.close();
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help' ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof IdemError) {
      process.stderr.write(`idem: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`idem: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.failed;
  }
}

function nonNegativeInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number ≥ 0 (got "${value}")`);
  return n;
}

/** The `idem run` flag that names a run key again. */
function runKeyFlag(runKey: string): string {
  return runKey.startsWith('file:') ? '--file <the same file>' : `--date ${runKey}`;
}

function formatReview(pipeline: string, items: readonly LedgerItem[]): string {
  if (items.length === 0) return `${pipeline}: no items in review or failed\n`;
  const header = ['destination', 'reference', 'status', 'attempts', 'run key', 'last error'];
  const rows = items.map((i) => [i.destination, i.sourceReference, i.failureKind ? `${i.status} (${i.failureKind})` : i.status, String(i.attempts), i.runKey, (i.lastError ?? '').slice(0, 80)]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]): string => cells.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd();
  return [
    line(header),
    ...rows.map(line),
    '',
    'To resolve an item, check the destination for its reference, then:',
    `  it is there:      idem review ${pipeline} --mark-posted <reference> --remote-ref <its id there>`,
    `  it is not there:  idem review ${pipeline} --retry <reference>   then rerun its run key (idem run ${pipeline} --date <run key>)`,
    '',
  ].join('\n');
}

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number ≥ 1 (got "${value}")`);
  return n;
}
