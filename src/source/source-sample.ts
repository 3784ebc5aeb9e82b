import type { ColumnSpec } from '../column/column-type.ts';
import type { SourceSettings } from '../config/source-settings.ts';
/**
 * The `idem new` flag that names a sample of a kind: `--<name> <argument>`, e.g.
 * `{ name: 'csv', argument: 'file', description: 'a sample CSV file (header first)' }`. The CLI
 * builds the command's flags from the kinds that declare one.
 */
export interface NewPipelineFlag {
  /** The flag without its dashes: `csv`, `json`. Unique among the kinds. */
  readonly name: string;
  /** The flag's argument in the help: `file`, `url-or-file`. */
  readonly argument: string;
  readonly description: string;
}

/** Settings of `idem new` a kind's sample may read. */
export interface SampleOptions {
  /** Field values read as NULL (a text kind). @defaultValue ['', 'NA', 'NULL'] */
  readonly nullValues: readonly string[];
  /** `--source NAME`: the `IDEM_SOURCES` entry a sample is read from (a SQL source's database). @defaultValue none */
  readonly sourceName?: string;
  /** The deployment's `IDEM_SOURCES` entries, and the project directory (a relative SQLite URL). */
  readonly sources: Readonly<Record<string, SourceSettings>>;
  readonly projectDir: string;
}

/** What `idem new` decided, for a kind to write its part of the generated files from. */
export interface NewPipelinePlan {
  /** The new pipeline's name (kebab-case). */
  readonly name: string;
  /** The most records the fixture keeps. */
  readonly fixtureRows: number;
  /** The pipeline's time zone, key fields, and columns (name → spec, in sample order; `fields` maps renamed columns to their field). */
  readonly timeZone: string;
  readonly key: readonly string[];
  readonly columns: readonly (readonly [string, ColumnSpec])[];
  readonly fields: Readonly<Record<string, string>>;
}

/** A kind's part of the files `idem new` writes: the source declaration, the fixture and what the test needs. */
export interface RenderedSource {
  /** What the pipeline module imports from `'idem'` for the declaration: `csvSource`. */
  readonly builder: string;
  /** The declaration, as TypeScript source: `csvSource({ … })` (lines after the first indented by two). */
  readonly declaration: string;
  /** Lines for the module's doc comment (without ` * `), e.g. where the base URL is set. */
  readonly notes: readonly string[];
  /**
   * The fixture: its path relative to the project (`fixtures/<name>/sample.<ext>`), text and record
   * count. @defaultValue none: no fixture and no test (a kind whose test needs more than a sample)
   */
  readonly fixture?: { readonly path: string; readonly text: string; readonly records: number };
  /** What the generated test adds to idem's test kit: imports, lines before the test, kit options, the run's flags (with `fixture`). */
  readonly test?: {
    readonly imports: readonly string[];
    readonly setup: readonly string[];
    /** Extra `startPipelineTest` options as TypeScript shorthand (`source`); none for most kinds. */
    readonly kitOptions: readonly string[];
    /** The run's flags as a TypeScript array literal: `['--file', 'fixtures/x/sample.csv']`. */
    readonly runArgs: string;
  };
  /**
   * What `idem new` prints as the commands to run next: an environment prefix (may be ''), the
   * run's flags, and (a kind without a fixture) the step that replaces the generated test.
   */
  readonly next: { readonly env: string; readonly runFlags: string; readonly instead?: string };
}

/**
 * A sample read by a kind for `idem new`: its fields and rows (for column inference and the key),
 * and how to write the kind's part of the generated files once the pipeline is planned.
 */
export interface SourceSample {
  /** The sample as the generated module's comment names it: a file's name, a URL. */
  readonly name: string;
  /** The fields, in order of first appearance. */
  readonly fields: readonly string[];
  /** One object per sample record, `{ [field]: value }`, a missing or null value as null (or absent). */
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  /** How the rows give their values for column inference: `text` (CSV) or `json` (parsed values). @defaultValue the kind's `fieldForm` */
  readonly form?: 'text' | 'json';
  /** What the generated pipeline's source declares, its fixture and its test's source. */
  render(plan: NewPipelinePlan): RenderedSource;
}

/**
 * What a kind offers `idem new`: its flag, and `sample`, which reads the sample the flag names.
 * Columns are inferred from the sample's rows as the kind's `fieldForm` gives them. A kind
 * without it has no `idem new` flag.
 */
export interface SourceKindScaffold {
  readonly flag: NewPipelineFlag;
  /**
   * Reads the sample at `location` (a file, a URL: what the flag was given). Load the reader with
   * `import()`: the kind object is imported by every pipeline module.
   * @throws UsageError naming the sample when it cannot be read or holds no records.
   */
  sample(location: string, options: SampleOptions): Promise<SourceSample>;
}
