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
import { parseBusinessDate } from '../runs/business-date.ts';
import { dateRunKey, fileRunKey, type RunKey } from '../runs/run-key.ts';

/** Exit codes (DESIGN.md): the scheduler's contract. */
export const EXIT = { ok: 0, failed: 1, usage: 2, needsOperator: 3, lockHeld: 75 } as const;

interface Session {
  config: ResolvedConfig;
  logger: Logger;
  db: Database;
}

async function openSession(): Promise<Session> {
  const config = loadConfig();
  const logger = await createLogger({ level: config.logLevel });
  return { config, logger, db: openDatabase(config) };
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
      const session = await openSession();
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

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number ≥ 1 (got "${value}")`);
  return n;
}
