import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DateTime, IANAZone } from 'luxon';
import type { ColumnSpec } from '../column/column-type.ts';
import type { SourceSettings } from '../config/source-settings.ts';
import { UsageError } from '../errors/usage-error.ts';
import { inferColumn } from './infer-column.ts';
import { isUniqueKey, proposeKey } from './propose-key.ts';
import { newPipelineKinds } from '../source/source-kinds.ts';
import { renderPipelineMigration } from './render-pipeline-migration.ts';
import { renderPipelineModule } from './render-pipeline-module.ts';
import { renderPipelineTest } from './render-pipeline-test.ts';
import type { ScaffoldPlan } from './scaffold-plan.ts';

/** What `idem new` is asked for. */
export interface ScaffoldRequest {
  readonly projectDir: string;
  /** The new pipeline's name: kebab-case. */
  readonly name: string;
  /**
   * The sample, by the `idem new` flag of its kind (`{ csv: FILE }`, `{ json: URL_OR_FILE }`, see
   * `newPipelineKinds`); exactly one. Entries whose value is undefined are ignored.
   */
  readonly samples: Readonly<Record<string, string | undefined>>;
  /**
   * The source field of the business key, or the fields of a composite key separated by commas
   * (`order_id,line_no`). @defaultValue proposed: the first field unique and present in every sample row
   */
  readonly key?: string;
  /** IANA zone of the business date, and of instants written without an offset. @defaultValue 'UTC' */
  readonly timeZone?: string;
  /** Field values read as NULL (a CSV sample). @defaultValue ['', 'NA', 'NULL'] */
  readonly nullValues?: readonly string[];
  /** `--source NAME`: the `IDEM_SOURCES` entry the sample is read from (a SQL source's database), and the deployment's entries. */
  readonly sourceName?: string;
  readonly sources?: Readonly<Record<string, SourceSettings>>;
  /** How many records the fixture keeps. @defaultValue 100 */
  readonly fixtureRows?: number;
}

/** What `idem new` wrote, relative to the project directory, and what it inferred. */
export interface ScaffoldResult {
  readonly plan: ScaffoldPlan;
  readonly files: readonly string[];
  /** Whether the key was proposed (no `--key`). */
  readonly keyProposed: boolean;
}

const PIPELINE_NAME = /^[a-z][a-z0-9-]{0,62}$/;
/** Rows of a `--sql` query that `idem new` infers columns and proposes a key from. */
const SQL_SAMPLE_ROWS = 1000;
const RESERVED_COLUMNS = new Set([
  'id', 'seq', 'run_key', 'source_system', 'source_reference', 'source_line', 'row_hash',
  'first_run_key', 'last_changed_run_key', 'created_at', 'updated_at',
]);

/** A source field's column name: a snake_case SQL identifier, never a framework column's. */
function columnName(field: string, taken: Set<string>): string {
  let name = field
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (name === '' || /^[0-9]/.test(name)) name = `c_${name}`;
  if (RESERVED_COLUMNS.has(name)) name = `${name}_value`;
  name = name.slice(0, 60);
  let unique = name;
  for (let n = 2; taken.has(unique); n++) unique = `${name}_${n}`;
  taken.add(unique);
  return unique;
}

/** The next migration's name prefix: now (UTC, `YYYYMMDDHHMMSS`), or one second after the newest migration when that is later. */
function migrationStamp(dir: string): string {
  const newest = existsSync(dir) ? readdirSync(dir).map((file) => file.slice(0, 14)).filter((stamp) => /^\d{14}$/.test(stamp)).sort().at(-1) : undefined;
  const now = DateTime.utc().toFormat('yyyyMMddHHmmss');
  if (newest === undefined || now > newest) return now;
  return DateTime.fromFormat(newest, 'yyyyMMddHHmmss', { zone: 'utc' }).plus({ seconds: 1 }).toFormat('yyyyMMddHHmmss');
}

/**
 * `idem new`: reads a sample, infers its columns (see `inferColumn`) and the business key, and
 * writes the pipeline module, its migration, a fixture (the sample's first `fixtureRows`
 * records) and a test. Writes nothing when any of the files exists.
 * @throws UsageError for a bad name, time zone or key, a sample it cannot read, no key it can
 *   propose, or a file that exists already.
 */
export async function scaffoldPipeline(request: ScaffoldRequest): Promise<ScaffoldResult> {
  const { name, projectDir } = request;
  if (!PIPELINE_NAME.test(name)) throw new UsageError(`pipeline name must be kebab-case, at most 63 characters (got ${JSON.stringify(name)})`);
  const kinds = newPipelineKinds();
  const given = Object.entries(request.samples).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const unknown = given.filter(([flag]) => !kinds.has(flag)).map(([flag]) => `--${flag}`);
  if (unknown.length > 0) throw new UsageError(`idem new has no sample flag ${unknown.join(', ')}`);
  const flags = [...kinds.keys()].map((flag) => `--${flag} ${kinds.get(flag)!.scaffold!.flag.argument.toUpperCase().replaceAll('-', '_')}`);
  if (given.length !== 1) throw new UsageError(`idem new needs exactly one sample: ${flags.join(' or ')}`);
  const [[flag, location]] = given as [[string, string]];
  const kind = kinds.get(flag)!;
  const timeZone = request.timeZone ?? 'UTC';
  if (!IANAZone.isValidZone(timeZone)) throw new UsageError(`--time-zone must be an IANA time zone (got ${JSON.stringify(timeZone)})`);
  const fixtureRows = request.fixtureRows ?? 100;
  const sample = await kind.scaffold!.sample(location, {
    nullValues: request.nullValues ?? ['', 'NA', 'NULL'],
    ...(request.sourceName === undefined ? {} : { sourceName: request.sourceName }),
    sources: request.sources ?? {},
    projectDir,
  });
  const { fields, rows } = sample;

  const proposed = proposeKey(fields, rows);
  const key = request.key?.split(',').map((field) => field.trim()) ?? (proposed === undefined ? undefined : [proposed]);
  if (key === undefined) {
    throw new UsageError(`no field of the sample is present and unique in every row, so none can be the business key: name it with --key FIELD, or the fields of a composite key with --key FIELD,FIELD (fields: ${fields.join(', ')})`);
  }
  const stray = key.filter((field) => !fields.includes(field));
  if (stray.length > 0) throw new UsageError(`--key ${stray.join(', ')} ${stray.length === 1 ? 'is not a field' : 'are not fields'} of the sample (fields: ${fields.join(', ')})`);
  if (new Set(key).size !== key.length) throw new UsageError(`--key ${request.key} names a field twice`);
  if (request.key !== undefined && !isUniqueKey(key, rows)) {
    throw new UsageError(`--key ${key.join(',')} is missing or repeated in the sample: a business key must be present and unique in every row`);
  }

  const taken = new Set<string>();
  const columns: (readonly [string, ColumnSpec])[] = [];
  const renamed: Record<string, string> = {};
  for (const field of fields) {
    if (key.includes(field)) continue;
    const column = columnName(field, taken);
    if (column !== field) renamed[column] = field;
    columns.push([column, inferColumn(rows.map((row) => row[field] ?? null), sample.form ?? (kind.fieldForm === 'text' ? 'text' : 'json'), timeZone)]);
  }
  if (columns.length === 0) throw new UsageError('the sample has no field besides the key: a pipeline needs at least one column');

  const table = name.replaceAll('-', '_');
  const source = sample.render({ name, fixtureRows, timeZone, key, columns, fields: renamed });
  const plan: ScaffoldPlan = {
    name,
    timeZone,
    key,
    columns,
    fields: renamed,
    tables: { staging: `stg_${table}`.slice(0, 63), target: table },
    sample: sample.name,
    source,
  };
  const migrationsDir = path.join(projectDir, 'migrations');
  const files: [string, string][] = [
    [`pipelines/${name}.ts`, renderPipelineModule(plan)],
    [`migrations/${migrationStamp(migrationsDir)}_create_${table}.ts`, renderPipelineMigration(plan)],
    ...(source.fixture === undefined
      ? []
      : ([
          [source.fixture.path, source.fixture.text],
          [`test/pipelines/${name}.test.ts`, renderPipelineTest(plan)],
        ] as [string, string][])),
  ];
  const existing = files.map(([file]) => file).filter((file) => existsSync(path.join(projectDir, file)));
  if (existing.length > 0) throw new UsageError(`idem new writes nothing over existing files: ${existing.join(', ')}`);
  for (const [file, text] of files) {
    mkdirSync(path.dirname(path.join(projectDir, file)), { recursive: true });
    writeFileSync(path.join(projectDir, file), text, { flag: 'wx' });
  }
  return { plan, files: files.map(([file]) => file), keyProposed: request.key === undefined };
}
