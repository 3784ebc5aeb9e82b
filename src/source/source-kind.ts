import type { ZodType } from 'zod';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import type { SourceSettings } from '../config/source-settings.ts';
import type { RetryInfo } from '../http/send-with-retry.ts';
import type { RunKey } from '../runs/run-key.ts';
import type { SourceFieldForm } from './columns-row-schema.ts';
import type { NumberFormat } from './number-format.ts';
import type { QuarantinedRow } from './quarantined-row.ts';
import type { SourceRow } from './source-row.ts';
import type { SourceKindScaffold } from './source-sample.ts';
import type { UnchangedFileCalls } from './unchanged-file-check.ts';

/**
 * What every source declaration holds, whatever its kind: the kind, the row schema and what a
 * rejected row does to the run. A kind adds its own options (a CSV file's encoding, an API's
 * paging).
 */
export interface SourceDeclaration<Row = unknown> {
  /**
   * The kind of source: a built-in kind's name (`csv`, `http-json`, see `SOURCE_KINDS`), or a
   * {@link SourceKind} object a pipeline module brings itself.
   */
  readonly kind: string | SourceKind<never>;
  /**
   * Validates and converts one row. @defaultValue derived from the pipeline's `columns` and `key`
   * by `definePipeline` (through {@link SourceKind.withDerivedRow})
   */
  readonly row?: ZodType<Row>;
  /**
   * What a quarantined row does to the run: `quarantine` loads the rest; `fail` reads the whole
   * source (so every bad row is quarantined at once) and then fails the run before anything is
   * upserted.
   */
  readonly invalidRows: 'quarantine' | 'fail';
  /**
   * `'full'`: each completed read is a full export of its scope, so a record of the scope that
   * the read does not hold was deleted at the source: it is marked deleted in the target
   * (`deleted_at`, `deleted_in_run_key`; never removed) and each destination's `delete` request
   * is posted for it. Refused with `incremental` (a read of changes sees no absence).
   * @defaultValue none: a record missing from a read stays as it is
   */
  readonly snapshot?: 'full';
  /**
   * With `snapshot`: the column whose value says which part of the source a read is a full
   * export of (a store, a country). A read covers the values it holds; the records of other
   * values are left alone. @defaultValue none: each read covers the whole source system
   */
  readonly snapshotScope?: string;
  /**
   * With `snapshot`: the share of a scope's live records a read may mark deleted (0..1). A read
   * that would mark more, or an empty read of a scope that holds records, stops before writing
   * anything (exit 3) until it is confirmed with `--allow-deletes N`. @defaultValue 0.1
   */
  readonly maxDeleteShare?: number;
  /**
   * Whether a validated row says its record was deleted at the source (`row.deleted === true`,
   * `row.status === 'archived'`): a tombstone, marked deleted like a record a snapshot lacks. The
   * pipeline's default `toRecords` (a pipeline with a `key`) applies it; a pipeline's own
   * `toRecords` yields `deleted: true` itself, and declares this to say that it may.
   * @defaultValue none: no row is a tombstone
   */
  tombstone?(row: Row): boolean;
}

/** Deployment settings and hooks for {@link SourceKind.read}. */
export interface ReadSourceOptions {
  /** The pipeline's `IDEM_SOURCES` entry (an HTTP source's headers and `http` overrides). */
  readonly settings?: SourceSettings;
  /** Called before waiting to retry a request to `url` (a kind that retries requests). */
  readonly onRetry?: (url: string, info: RetryInfo) => void | Promise<void>;
  /**
   * Called with each validated row before it is yielded: only by a kind that declares
   * `observesRows` (for other kinds the runner calls it as it takes each row).
   */
  readonly onRow?: (row: SourceRow<unknown>) => void;
  /**
   * The high-water mark to read from, for a kind with `incremental`. @defaultValue none: read
   * everything
   */
  readonly since?: string;
  /**
   * What the run expects of a file across its reads (a kind that `readsFiles`): each read tells
   * it the version it opened and the SHA-256 of the bytes it read to the end. @defaultValue none
   */
  readonly unchanged?: UnchangedFileCalls;
  /**
   * The run key being read, and where the source is looked for (as `locate` saw them): a kind
   * whose read depends on the run key (a SQL source's query takes the business date's range in
   * the pipeline's time zone) or on other deployment settings reads them here. The runner always
   * gives both. @defaultValue none: a kind reads `location` alone
   */
  readonly runKey?: RunKey;
  readonly context?: SourceContext;
}

/** A source's stand-in for one proof case (see {@link SourceKind.standIn}). */
export interface SourceStandIn {
  /** `IDEM_SOURCES` entries by name that replace the deployment's for the case's runs. */
  readonly sources: Readonly<Record<string, SourceSettings>>;
  /** Removes the stand-in (a temporary database). */
  close(): Promise<void>;
}

/** What a kind may look at to find or check its source: the pipeline's name and the deployment. */
export interface SourceContext {
  readonly pipelineName: string;
  /** The pipeline's IANA time zone, in which its business dates start and end. */
  readonly timeZone: string;
  readonly config: Pick<ResolvedConfig, 'projectDir' | 'sourceDir' | 'sources'>;
}

/**
 * How a source reads only what changed since the last completed run (see
 * `HttpJsonIncremental`): the mark moves to the greatest `cursor` a completed run read.
 */
export interface IncrementalCursor {
  /** An item's cursor, from its validated row. */
  readonly cursor: (row: unknown) => unknown;
  /** How cursors compare. */
  readonly type: 'instant' | 'integer';
}

/** What `idem prove` gives a kind to change its source (see {@link SourceKind.changedCopy}). */
export interface ChangedCopyRequest {
  /** Where the clean run read: the kind's `locate` for the proof's run key (the served URL for a source served by handlers). */
  readonly location: string;
  readonly runKey: RunKey;
  /** A fresh directory for the files of the copy; removed after the proof. */
  readonly dir: string;
  /** The msw handlers that serve the source, for a kind with `servedByHandlers` whose stand-in describes it. */
  readonly handlers?: readonly unknown[];
  /** Source fields the change must leave alone: the business key's (a changed key is another record, not an update). */
  readonly keep: readonly string[];
}

/**
 * A version of the source with one value of one record changed, as a run reads it: with `env`
 * over the deployment's settings (`IDEM_SOURCE_DIR` for a directory of dated files, a variable a
 * module's own kind reads), `file` instead of the `--file` of a run keyed by a file, `handlers`
 * instead of the stand-in's for a source served by handlers. Only what differs is given.
 */
export interface ChangedSource {
  /** What was changed, in words for the proof's table: `line 2, Country: "United Kingdom" → "United Kingdom (changed)"`. */
  readonly change: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly file?: string;
  readonly handlers?: readonly unknown[];
}

/**
 * A kind of source, as the runner, `idem check`, `idem prove`, dry runs and the test kit see it:
 * one object per kind (`src/source/<kind>/`), named in `SOURCE_KINDS` or brought by a pipeline
 * module as its source's `kind`. Code above `source/` asks these capabilities, never the kind's
 * name. `Source` is the kind's declaration (its options).
 *
 * What a kind must keep: `read` yields rows in source order with 1-based `line`s, hands every
 * row `source.row` rejects to `quarantine` (naming the location, line, field and rule, with the
 * row's text where there is one), and throws a `SourceError` (exit 1) when the source cannot be
 * read, a `UsageError` or `PipelineError` (exit 2) for a mistake in the pipeline or its settings,
 * and a `SourceUnavailableError` (exit 75) when the source stayed unreachable through the kind's
 * retries before anything was read.
 */
export interface SourceKind<Source extends SourceDeclaration = SourceDeclaration> {
  /** The kind's name, for messages and logs: `csv`, `http-json`. */
  readonly name: string;
  /**
   * How the kind gives its fields to a row schema that `definePipeline` derives from the columns:
   * `text` (every field a string or null, as CSV), `json` (parsed JSON values) or `sql` (values
   * as a SQL driver gives them: 64-bit integers as digits, booleans as 1/0, JSON as text).
   */
  readonly fieldForm: SourceFieldForm;
  /**
   * How a declaration of this kind writes numbers in its text fields (a decimal comma), for the
   * row schema `definePipeline` derives from the columns. @defaultValue plain: `1234.50`
   */
  numberFormat?(source: Source): NumberFormat;
  /**
   * The source can be read again from the start within one run (a file; an API's pages cannot
   * be asked for twice): `groupRows` then first assumes its rows come grouped by key and skips
   * its sort, and asks for a second, sorted pass only when a key comes back.
   */
  readonly rereadable: boolean;
  /**
   * The source is a file a run can be given with `--file`, whose identity (name and content
   * hash) is the run key. @defaultValue false: runs take `--date` only
   */
  readonly readsFiles?: boolean;
  /**
   * `idem prove` and the test kit may serve the source from the project's msw handlers
   * (`source()` of `stand-ins/<pipeline>.ts`) on a loopback port, replacing its `IDEM_SOURCES`
   * URL. @defaultValue false: the source is read where it is
   */
  readonly servedByHandlers?: boolean;
  /**
   * `read` calls `options.onRow` itself (saving the runner a promise per row). @defaultValue false
   */
  readonly observesRows?: boolean;
  /**
   * `read` may run on a thread of its own (`IDEM_READ_THREADS=2`, see `readSourceOnThreads` in runner/): the
   * thread loads the pipeline's module again to get the same declaration (a row schema is code,
   * which cannot be sent to a thread), calls `read` with the location and the plain-data
   * options (`settings`, `since`, `runKey`, `context`; no `onRetry`), and sends the rows,
   * quarantined rows and `unchanged` calls back in source order. A kind declares it when its
   * reading is CPU work (parsing, validation) and `read` needs nothing of the calling thread: no
   * connection, no callback but `quarantine` and `unchanged`. Its rows' values must survive
   * structured cloning (a class instance the row schema makes, a `Big`, sends the read back to
   * the calling thread). @defaultValue false: the run's own thread reads
   */
  readonly readsInWorker?: boolean;
  /**
   * The declaration's options, checked by `definePipeline` when the module is imported (a zod
   * schema; `kind` is checked by the registry). Built-in kinds check every option and refuse
   * unknown ones. @defaultValue none: the kind checks nothing beyond `row` and `invalidRows`
   */
  readonly options?: ZodType;
  /** Problems between the declaration's options that `options` cannot see, one line each. @defaultValue none */
  problems?(source: Source): readonly string[];
  /**
   * The declaration with the row schema `definePipeline` derived from a pipeline's `key` and
   * columns: `row`, and `fields`, the source fields it reads (the key's first).
   */
  withDerivedRow(source: Source, derived: { readonly row: ZodType; readonly fields: readonly string[] }): Source;
  /**
   * Where a run reads from (a file path, a URL, or whatever `read` takes), before the run takes
   * its lock.
   * @throws UsageError when the run key or the deployment does not fit the source (a `--file`
   *   run of an API, a missing base URL).
   */
  locate(source: Source, runKey: RunKey, context: SourceContext): string;
  /**
   * Why a run of `runKey` completes empty without reading (a dated file that is missing where
   * the source says a missing file is a day without data), or undefined: the run reads.
   */
  skipReason?(source: Source, runKey: RunKey, location: string): string | undefined;
  /** `idem check`: what is wrong with where the source is, one line each; none when nothing is. */
  checkLocation(source: Source, context: SourceContext): readonly string[];
  /** The source's size in bytes for the extract progress bar, when known. */
  sizeOf?(location: string): number | undefined;
  /**
   * Streams the source's validated rows from `location`, sending rejected rows to `quarantine`;
   * or a promise of them, so a kind loads its reader (a parser, an HTTP client) only when a run
   * reads: pipeline modules import every kind, and a module imported twice (a TypeScript
   * pipeline loads idem in a loader namespace of its own) must not start one twice.
   * @throws SourceError when the source cannot be read.
   */
  read(source: Source, location: string, quarantine: (row: QuarantinedRow) => Promise<void>, options: ReadSourceOptions): AsyncIterable<SourceRow<unknown>> | Promise<AsyncIterable<SourceRow<unknown>>>;
  /**
   * A throwaway stand-in of the source for one `idem prove` case: the `IDEM_SOURCES` entries that
   * point the case's runs at it instead of the real source, and how to remove it. A kind whose
   * source a proof must never read (another team's database) defines it; it may refuse
   * (`UsageError`) when the project describes no stand-in. @defaultValue none: the source is read
   * where it is (a file), or served by the project's handlers (`servedByHandlers`)
   */
  standIn?(source: Source, runKey: RunKey, context: SourceContext): Promise<SourceStandIn>;
  /** The source's incremental cursor, when it reads only what changed since its mark. */
  incremental?(source: Source): IncrementalCursor | undefined;
  /**
   * `idem quarantine --replay`: a source of this kind that reads `rows` (the quarantined rows'
   * text), as a file's text and the declaration to read it with. Undefined: rows of this kind
   * cannot be replayed from their text (rerun the run key).
   */
  replay?(source: Source, rows: readonly string[]): { readonly text: string; readonly source: Source };
  /**
   * `idem new`: the kind's flag (`--csv FILE`) and how it reads a sample and writes its part of
   * the generated files (see `SourceKindScaffold`). @defaultValue none: `idem new` has no flag for the kind
   */
  readonly scaffold?: SourceKindScaffold;
  /**
   * `idem prove`'s update checks: the source with one value of its first record changed (a
   * value `source.row` still accepts, in a field not in `request.keep`), so that a run of it
   * updates one row and sends one update. Load what it needs with `import()`.
   * @returns the changed source, or why none can be made (`{ unchanged: reason }`): the proof then
   *   says the update path was not proved. @defaultValue none: the update path is not proved
   */
  changedCopy?(source: Source, request: ChangedCopyRequest): Promise<ChangedSource | { readonly unchanged: string }>;
}
