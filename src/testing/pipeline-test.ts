import path from 'node:path';
import type { RequestHandler } from 'msw';
import { runIdemChild, type IdemChildResult } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { createScratchDatabase, type ScratchDatabase } from '../db/create-scratch-database.ts';
import type { Database } from '../db/database.ts';
import { openDatabase } from '../db/open-database.ts';
import type { LedgerItem } from '../ledger/ledger-item.ts';
import { selectJobLedgerItems } from '../ledger/select-job-ledger-items.ts';
import { loadStandInHandlers } from '../project/load-stand-in-handlers.ts';
import { loadPipeline } from '../pipeline/load-pipeline.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { recordingApi } from './recording-api.ts';
import { serveHandlers, type HandlerServer, type RecordedRequest } from './serve-handlers.ts';

/** What {@link startPipelineTest} sets up. */
export interface PipelineTestOptions {
  /** The pipeline's name (its module is `pipelines/<name>.ts` of the project). */
  readonly pipeline: string;
  /** The project directory (`pipelines/`, `migrations/`). @defaultValue `process.cwd()` */
  readonly projectDir?: string;
  /**
   * A database server URL (`postgres://…`, `mysql://…`, `mssql://…`) on which a throwaway
   * database is created and dropped again by `close()`. A `sqlite:` URL or none: a throwaway
   * SQLite file in a new temp directory. @defaultValue `process.env.DATABASE_URL`
   */
  readonly databaseUrl?: string;
  /**
   * msw request handlers per destination name, each destination served on its own loopback
   * port. @defaultValue `destinations()` of the project's `stand-ins/<pipeline>.ts` (the same
   * description `idem prove` uses), and {@link recordingApi} for a destination it leaves out
   */
  readonly destinations?: Readonly<Record<string, readonly RequestHandler[]>>;
  /**
   * msw request handlers for the pipeline's HTTP JSON source, served on a loopback port (its
   * `IDEM_SOURCES` URL). @defaultValue `source()` of `stand-ins/<pipeline>.ts`, else none
   */
  readonly source?: readonly RequestHandler[];
  /** More environment for every `idem` child (`IDEM_NOW`, `LOG_LEVEL`, …). */
  readonly env?: Readonly<Record<string, string>>;
}

/** One `idem run` of the pipeline under test. */
export interface PipelineTestRun {
  /** The process's exit code (0 ok, 75 retry later, 3 a person must act, 1 failed, 2 usage). */
  readonly exitCode: number | null;
  /** The run's outcome from its summary log line (`completed`, `noop`, `failed`, …). */
  readonly outcome: string | undefined;
  /** Per-stage counts from the summary line: `{ extract: { rows, records, quarantined }, upsert: { inserted, updated, unchanged }, post: { … } }`. */
  readonly counts: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** The whole child result: stdout, stderr, parsed log lines. */
  readonly child: IdemChildResult;
}

/** A pipeline on a throwaway, migrated database with its destinations (and source) standing in. */
export interface PipelineTest {
  /** The database's URL (`DATABASE_URL` of every child). */
  readonly databaseUrl: string;
  /** The environment every `idem` child gets: `DATABASE_URL`, `IDEM_PROJECT_DIR`, `IDEM_DESTINATIONS`, `IDEM_SOURCES`. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Runs `idem run <pipeline> …args` as a child process (`['--file', 'fixtures/x.csv']`,
   * `['--date', '2010-12-01']`); a relative `--file` is resolved against the project directory.
   */
  run(args?: readonly string[]): Promise<PipelineTestRun>;
  /** Runs any `idem` command with the test's environment (`['review', …]`, `['status']`). */
  idem(args: readonly string[]): Promise<IdemChildResult>;
  /** The target table's rows (or `table`'s), ordered by `source_reference` when it has one. */
  rows(table?: string): Promise<Record<string, unknown>[]>;
  /** Requests a destination received, in order (the only destination when `destination` is left out). */
  requests(destination?: string): readonly RecordedRequest[];
  /** Requests the HTTP source received. */
  sourceRequests(): readonly RecordedRequest[];
  /** The post ledger's items of this pipeline, by destination, business key, then oldest first (`status`, `attempts`, `remoteReference`, `lastError`, …). */
  ledger(): Promise<LedgerItem[]>;
  /** Stops the servers, closes the connection and drops the throwaway database. */
  close(): Promise<void>;
}

/**
 * Sets up a test of one pipeline: a throwaway database (see `databaseUrl`) migrated by
 * `idem migrate` (idem's own tables and the project's migrations), each destination served by
 * msw handlers on a loopback port (a recording API by default), the HTTP source too when
 * handlers are given. Runs are real `idem` child processes, as a scheduler starts them.
 * @throws Error (rejects) when `idem migrate` fails, with its output; UsageError when the
 * pipeline module cannot be loaded or `destinations` names a destination the pipeline lacks.
 */
export async function startPipelineTest(options: PipelineTestOptions): Promise<PipelineTest> {
  const projectDir = path.resolve(options.projectDir ?? process.cwd());
  const pipeline: PipelineDefinition = await loadPipeline(projectDir, options.pipeline);
  const requested = options.databaseUrl ?? process.env.DATABASE_URL;
  const described = options.destinations && options.source ? undefined : await loadStandInHandlers(projectDir, pipeline.name);
  const destinationHandlers = options.destinations ?? described?.destinations ?? {};
  const sourceHandlers = options.source ?? described?.source;
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    const scratch: ScratchDatabase = await createScratchDatabase({
      prefix: 'idem_test',
      ...(requested && !requested.startsWith('sqlite:') ? { serverUrl: requested } : {}),
    });
    closers.push(() => scratch.drop());
    const servers = new Map<string, HandlerServer>();
    const destinations: Record<string, { url: string }> = {};
    for (const name of Object.keys(destinationHandlers)) {
      if (!pipeline.destinations.some((d) => d.name === name)) throw new Error(`pipeline ${pipeline.name} has no destination ${name}; its destinations: ${pipeline.destinations.map((d) => d.name).join(', ') || 'none'}`);
    }
    for (const destination of pipeline.destinations) {
      const server = await serveHandlers(destinationHandlers[destination.name] ?? recordingApi());
      closers.push(() => server.close());
      servers.set(destination.name, server);
      destinations[destination.name] = { url: server.url };
    }
    let source: HandlerServer | undefined;
    if (sourceHandlers) {
      source = await serveHandlers(sourceHandlers);
      closers.push(() => source!.close());
    }
    const env: Record<string, string> = {
      DATABASE_URL: scratch.url,
      IDEM_PROJECT_DIR: projectDir,
      IDEM_DESTINATIONS: JSON.stringify(destinations),
      ...(source ? { IDEM_SOURCES: JSON.stringify({ [pipeline.name]: { url: source.url } }) } : {}),
      LOG_LEVEL: 'info',
      ...options.env,
    };
    const idem = (args: readonly string[]): Promise<IdemChildResult> =>
      runIdemChild(args, { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, { cwd: projectDir });
    const migrated = await idem(['migrate']);
    if (migrated.code !== EXIT_CODES.ok) throw new Error(`idem migrate exited ${migrated.code}:\n${migrated.stderr}${migrated.stdout}`);
    const db: Database = await openDatabase({ databaseUrl: scratch.url, projectDir });
    closers.push(() => db.close());
    return {
      databaseUrl: scratch.url,
      env,
      idem,
      async run(args = []) {
        const resolved = args.map((arg, i) => (args[i - 1] === '--file' ? path.resolve(projectDir, arg) : arg));
        const child = await idem(['run', pipeline.name, ...resolved]);
        const summary = child.summary ?? {};
        return {
          exitCode: child.code,
          outcome: summary.outcome as string | undefined,
          counts: (summary.counts ?? {}) as PipelineTestRun['counts'],
          child,
        };
      },
      async rows(table = pipeline.tables.target) {
        const query = db.knex(table).select('*');
        const hasReference = await db.knex.schema.hasColumn(table, 'source_reference');
        return (await (hasReference ? query.orderBy('source_reference') : query)) as Record<string, unknown>[];
      },
      requests(destination) {
        const name = destination ?? (servers.size === 1 ? [...servers.keys()][0]! : undefined);
        const server = name === undefined ? undefined : servers.get(name);
        if (!server) throw new Error(`name one of the destinations of ${pipeline.name}: ${[...servers.keys()].join(', ') || 'none'}`);
        return server.requests;
      },
      sourceRequests: () => source?.requests ?? [],
      ledger: () => selectJobLedgerItems(db, pipeline.name),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
