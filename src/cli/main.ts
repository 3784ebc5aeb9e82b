import { Command, CommanderError, Option } from 'commander';
import { IdemError } from '../errors/idem-error.ts';
import { UsageError } from '../errors/usage-error.ts';
import { commandLineOf } from './command-line.ts';
import { idemVersion } from './idem-version.ts';
import { exitCodeOf, type ExitCode, type Outcome } from '../outcome/outcome.ts';
import { escapeControlCharacters } from '../text/escape-control-characters.ts';
import { redactSecrets } from '../text/redact-secrets.ts';
import { commandIo, processIo, runWithCommandIo, type CommandIo } from '../command-io/command-io.ts';

function wholeNumber(flag: string, min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new UsageError(`${flag} must be a whole number ≥ ${min}${max < Number.MAX_SAFE_INTEGER ? ` and ≤ ${max}` : ''} (got "${value}")`);
    }
    return n;
  };
}

/** Whether the command `argv` names stops politely on a stop signal (see `withPoliteStop`): those that run a pipeline or post. */
function stopsPolitely(argv: readonly string[]): boolean {
  return ['run', 'work', 'backfill', 'repost'].includes(argv[0] ?? '') || (argv[0] === 'quarantine' && argv.includes('--replay'));
}

/** The most processes `idem run --workers` starts on one host; more hosts: `idem work` on each. */
const MAX_LOCAL_WORKERS = 32;

/** Whether `LOG_LEVEL` asks for detail: then an error's causes are printed with their stacks. */
function wantsStacks(): boolean {
  const level = commandIo().env.LOG_LEVEL;
  return level === 'debug' || level === 'trace';
}

/** The stacks of an error's causes, each on lines of its own after `caused by:`. */
function causeStacks(error: Error): string {
  let text = '';
  for (let cause = error.cause; cause !== undefined; cause = cause instanceof Error ? cause.cause : undefined) {
    text += `caused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}\n`;
  }
  return text;
}

/**
 * The `idem` command line. Parses flags strictly and hands them to one command module, loaded
 * only when its command runs (start-up stays small); it holds no ETL logic of its own. An error
 * idem throws on purpose is printed as one line, `idem: <message>` (with `LOG_LEVEL=debug` or
 * `trace`, followed by the stacks of its causes); any other error with its stack.
 * @param io the command's environment, working directory and streams. @defaultValue the process's own ({@link processIo})
 * @returns the exit code of how the command ended (see src/outcome/outcome.ts).
 */
export function main(argv: readonly string[], io: CommandIo = processIo()): Promise<ExitCode> {
  return runWithCommandIo(io, () => runCommandLine(argv));
}

async function runCommandLine(argv: readonly string[]): Promise<ExitCode> {
  let outcome: Outcome = 'completed';
  const program = new Command('idem')
    .description('ETL sync pipelines that are safe to run twice')
    .version(idemVersion(), '-V, --version', "print idem's version")
    .exitOverride()
    .configureOutput({ writeOut: (text) => commandIo().stdout.write(text), writeErr: (text) => commandIo().stderr.write(text) })
    .showHelpAfterError('(run idem --help for usage)');

  program
    .command('run')
    .description('run one pipeline for one business date, one file, or every date it missed')
    .argument('<pipeline>', 'pipeline name (see idem pipelines)')
    .option('--date <date>', "business date YYYY-MM-DD, or today / yesterday in the pipeline's time zone")
    .option('--file <path>', 'a source file; its name and content hash are the run key')
    .option('--catch-up', 'every business date from the day after the last completed one up to yesterday')
    .option('--force', 'run a completed run key again')
    .option('--force-reconcile', 'run again and ask the destination about every posted record; repair what is missing or different')
    .option('--dry-run', 'run extract, stage and diff in a rolled-back transaction and print the plan; writes and sends nothing')
    .option('--triggered-by <who>', 'recorded in job_runs.triggered_by (default: IDEM_TRIGGERED_BY, else the OS user)')
    .option('--heartbeat-url <url>', 'healthchecks.io-style ping URL (default: IDEM_HEARTBEATS)')
    .option('--workers <n>', 'processes sharing the post stage: this run and N-1 idem work children (see docs/scaling.md)', wholeNumber('--workers', 1, MAX_LOCAL_WORKERS), 1)
    .option('--allow-deletes <n>', "confirm that a full snapshot marks N records deleted, past the delete guard (N is the count the guard named)", wholeNumber('--allow-deletes', 0))
    .addOption(new Option('--batch-rows <n>', 'rows per staging batch').argParser(wholeNumber('--batch-rows', 1)).hideHelp())
    .action(async (name: string, options) => {
      const { runCommand } = await import('./commands/run-command.ts');
      outcome = await runCommand(name, { ...options, commandLine: commandLineOf(argv) });
    });

  program
    .command('work')
    .description("share the post stage of a run another process is running (see docs/scaling.md); waits for its post stage")
    .argument('<pipeline>', 'pipeline name')
    .option('--run-key <key>', 'the run key, as idem status shows it (a business date, or file:NAME@sha256:…)')
    .option('--date <date>', "business date YYYY-MM-DD, or today / yesterday in the pipeline's time zone")
    .option('--file <path>', 'a source file; its name and content hash are the run key')
    .option('--wait-ms <n>', 'how long to wait for the run to reach its post stage, in ms', wholeNumber('--wait-ms', 0), 600_000)
    .addOption(new Option('--poll-ms <n>', 'how often to look while waiting, in ms').argParser(wholeNumber('--poll-ms', 10)).hideHelp())
    .action(async (name: string, options) => {
      const { workCommand } = await import('./commands/work-command.ts');
      outcome = await workCommand(name, options);
    });

  program
    .command('backfill')
    .description('run each business date from --from to --to in order, skipping completed ones')
    .argument('<pipeline>', 'pipeline name')
    .requiredOption('--from <YYYY-MM-DD>', 'first business date')
    .requiredOption('--to <YYYY-MM-DD>', 'last business date')
    .option('--triggered-by <who>', 'recorded in job_runs.triggered_by (default: IDEM_TRIGGERED_BY, else the OS user)')
    .option('--heartbeat-url <url>', 'healthchecks.io-style ping URL (default: IDEM_HEARTBEATS)')
    .action(async (name: string, options) => {
      const { backfillCommand } = await import('./commands/backfill-command.ts');
      outcome = await backfillCommand(name, { ...options, commandLine: commandLineOf(argv) });
    });

  program
    .command('status')
    .description('run history, stuck runs and ledger items needing an operator')
    .argument('[pipeline]', 'only this pipeline')
    .option('--date <YYYY-MM-DD>', 'only this run key')
    .option('--json', 'machine-readable output')
    .option('--limit <n>', 'the most runs to show', wholeNumber('--limit', 1), 50)
    .action(async (name: string | undefined, options) => {
      const { statusCommand } = await import('./commands/status-command.ts');
      outcome = await statusCommand(name, options);
    });

  program
    .command('review')
    .description('list post ledger items in review or failed, with the commands that resolve them')
    .argument('<pipeline>', 'pipeline name')
    .option('--mark-posted <reference>', 'the record is at the destination: mark its item posted (needs --remote-ref)')
    .option('--remote-ref <id>', "the destination's id of the record, with --mark-posted")
    .option('--retry <reference>', 'the record is not at the destination: send it again on the next run')
    .option('--destination <name>', 'which destination, when several hold the reference')
    .action(async (name: string, options) => {
      const { reviewCommand } = await import('./commands/review-command.ts');
      outcome = await reviewCommand(name, options);
    });

  program
    .command('repost')
    .description("send a destination's posted records again after a fix to its request(), through the ledger and its strategy, exactly once")
    .argument('<pipeline>', 'pipeline name')
    .requiredOption('--destination <name>', 'the destination to send them to again')
    .option('--since <YYYY-MM-DD>', "only records posted on or after this date (in the pipeline's time zone)")
    .option('--reference <ref>', 'only the record with this source reference')
    .option('--dry-run', 'list the records it would send; send nothing')
    .option('--force', 'repost again a repost that completed (after another fix)')
    .option('--triggered-by <who>', 'recorded in job_runs.triggered_by (default: IDEM_TRIGGERED_BY, else the OS user)')
    .action(async (name: string, options) => {
      const { repostCommand } = await import('./commands/repost-command.ts');
      outcome = await repostCommand(name, { ...options, commandLine: commandLineOf(argv) });
    });

  program
    .command('quarantine')
    .description('list quarantined rows, or replay them after a fix')
    .argument('<pipeline>', 'pipeline name')
    .option('--run-key <key>', 'only this run key (a business date, or a file run key)')
    .option('--replay', "re-stage the run key's quarantined rows, under the normal lock and run rules")
    .option('--json', 'machine-readable output')
    .option('--triggered-by <who>', 'recorded in job_runs.triggered_by for --replay (default: IDEM_TRIGGERED_BY, else the OS user)')
    .option('--limit <n>', 'the most rows to list', wholeNumber('--limit', 1), 1000)
    .action(async (name: string, options) => {
      const { quarantineCommand } = await import('./commands/quarantine-command.ts');
      outcome = await quarantineCommand(name, { ...options, commandLine: commandLineOf(argv) });
    });

  program
    .command('prune')
    .description('retention: completed job runs, quarantine, replaced ledger rows and staging leftovers')
    .requiredOption('--older-than <age>', 'age such as 90d or 36h')
    .option('--dry-run', 'count what would be deleted, delete nothing')
    .action(async (options) => {
      const { pruneCommand } = await import('./commands/prune-command.ts');
      outcome = await pruneCommand(options);
    });

  program
    .command('duplicates')
    .description('list the keys more than one row of an existing table holds (exit 3 when some do), or keep one row per key')
    .argument('<table>', 'a table of DATABASE_URL')
    .requiredOption('--key <columns>', 'the columns that should be unique together, separated by commas')
    .option('--keep <rule>', 'newest or oldest: which row of each key stays (with --by); prints the plan')
    .option('--by <column>', 'the column --keep compares, such as updated_at')
    .option('--apply', 'carry the plan out in one transaction: copy the other rows to <table>_duplicates, delete them, create the unique index')
    .option('--json', 'machine-readable output')
    .option('--limit <n>', 'the most keys to list', wholeNumber('--limit', 1), 20)
    .action(async (table: string, options) => {
      const { duplicatesCommand } = await import('./commands/duplicates-command.ts');
      outcome = await duplicatesCommand(table, options);
    });

  program
    .command('migrate')
    .description('apply framework and pipeline migrations up to the latest')
    .option('--make [name]', "write a new migration from the difference between the pipelines' columns and the database (applies nothing)")
    .action(async (options) => {
      const { migrateCommand } = await import('./commands/migrate-command.ts');
      outcome = await migrateCommand(options);
    });

  const newPipeline = program
    .command('new')
    .description('write a pipeline from a sample: its module, migration, fixture and test, with column types inferred')
    .argument('<pipeline>', 'the new pipeline name, kebab-case');
  // One sample flag per source kind that declares one; the kinds are loaded only for `idem new`.
  if (argv[0] === 'new' || (argv[0] === 'help' && argv[1] === 'new')) {
    const { newPipelineKinds } = await import('../source/source-kinds.ts');
    for (const [name, kind] of newPipelineKinds()) newPipeline.option(`--${name} <${kind.scaffold!.flag.argument}>`, kind.scaffold!.flag.description);
  }
  newPipeline
    .option('--source <name>', 'the IDEM_SOURCES entry the sample is read from: the database of --sql')
    .option('--key <field>', 'the field that holds the business key, or the fields of a composite key: order_id,line_no (default: proposed, the first field present and unique in every sample row)')
    .option('--time-zone <zone>', 'IANA time zone of business dates and of date-times without an offset', 'UTC')
    .option('--null-values <list>', 'comma-separated CSV field values read as NULL', ',NA,NULL')
    .option('--rows <n>', 'records kept in the fixture', wholeNumber('--rows', 1), 100)
    .action(async (name: string, options) => {
      const { newCommand } = await import('./commands/new-command.ts');
      outcome = await newCommand(name, options);
    });

  program
    .command('pipelines')
    .description('list the pipeline definitions found in pipelines/')
    .action(async () => {
      const { pipelinesCommand } = await import('./commands/pipelines-command.ts');
      outcome = await pipelinesCommand();
    });

  program
    .command('check')
    .description('every load-time check of the pipelines (definitions, header against schema, URLs, source directories, columns against the database); runs nothing')
    .argument('[pipelines...]', 'pipeline names (default: every pipeline in pipelines/)')
    .option('--no-database', 'leave out the checks that read the database (columns against the staging and target tables)')
    .action(async (names: string[], options: { database: boolean }) => {
      const { checkCommand } = await import('./commands/check-command.ts');
      outcome = await checkCommand(names, { database: options.database });
    });

  program
    .command('prove')
    .description('prove a pipeline is safe to run twice: kills at every stage, reruns and overlap on throwaway databases')
    .argument('<pipeline>', 'pipeline name')
    .option('--date <date>', "business date YYYY-MM-DD, or today / yesterday in the pipeline's time zone")
    .option('--file <path>', 'a source file; its name and content hash are the run key')
    .option('--database-url <url>', 'a PostgreSQL, MySQL/MariaDB or SQL Server to create scratch databases on (default: temp SQLite files)')
    .option('--seed <n>', 'seed of the random kill points in the post stage (default: random, printed)', wholeNumber('--seed', 0))
    .option('--concurrency <n>', 'checks run at once, each on its own scratch database (default: CPUs, at most 4)', wholeNumber('--concurrency', 1))
    .option('--only <text>', 'run only the checks whose name contains TEXT (repeatable); the clean runs they compare with always run', (text: string, previous: string[] = []) => [...previous, text])
    .action(async (name: string, options) => {
      const { proveCommand } = await import('./commands/prove-command.ts');
      outcome = await proveCommand(name, options);
    });

  program
    .command('ui')
    .description('serve a read-only operator page over the database: pipelines, runs, live runs, review (see docs/operating.md)')
    .option('--port <n>', 'port to listen on (0: a free one)', wholeNumber('--port', 0, 65535), 4321)
    .option('--host <host>', 'address to listen on; any but loopback needs IDEM_UI_TOKEN', '127.0.0.1')
    .action(async (options) => {
      const { uiCommand } = await import('./commands/ui-command.ts');
      outcome = await uiCommand(options);
    });

  program
    .command('sandbox-api')
    .description('serve the sandbox accounting API (for development, the demo and tests)')
    .option('--port <n>', 'port to listen on (0: a free one)', wholeNumber('--port', 0), 0)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--latency-ms <n>', 'fixed latency before every answer', wholeNumber('--latency-ms', 0), 0)
    .option('--no-idempotency-keys', 'ignore Idempotency-Key headers (to exercise the other strategies)')
    .action(async (options) => {
      const { sandboxApiCommand } = await import('./commands/sandbox-api-command.ts');
      outcome = await sandboxApiCommand(options);
    });

  // The commands that run a pipeline or post stop politely on SIGTERM, SIGINT and SIGHUP, also
  // while they are still starting (docs/operating.md, "Stopping a run").
  const stopListening = stopsPolitely(argv) ? (await import('./with-polite-stop.ts')).listenForStopSignals() : undefined;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      outcome = error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help' ? 'completed' : 'usage';
    } else if (error instanceof IdemError) {
      // Line breaks are idem's own (a table of differences); every other control character is escaped.
      commandIo().stderr.write(redactSecrets(`idem: ${error.message.split('\n').map(escapeControlCharacters).join('\n')}\n${wantsStacks() ? causeStacks(error) : ''}`));
      outcome = error.outcome;
    } else {
      commandIo().stderr.write(redactSecrets(`idem: ${(error as Error).stack ?? String(error)}\n`));
      outcome = 'failed';
    }
  } finally {
    stopListening?.();
  }
  return exitCodeOf(outcome);
}
