import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DateTime, IANAZone } from 'luxon';
import type { ColumnSpec } from '../column/column-type.ts';
import { UsageError } from '../errors/usage-error.ts';
import { inferColumn } from './infer-column.ts';
import { proposeKey } from './propose-key.ts';
import { readCsvSample } from './read-csv-sample.ts';
import { readJsonSample } from './read-json-sample.ts';
import { sampleSqlQuery } from '../source/sql/sample-sql-query.ts';
import { renderPipelineMigration } from './render-pipeline-migration.ts';
import { renderPipelineModule } from './render-pipeline-module.ts';
import { renderPipelineTest } from './render-pipeline-test.ts';
import type { ScaffoldPlan } from './scaffold-plan.ts';

/** What `idem new` is asked for. */
export interface ScaffoldRequest {
  readonly projectDir: string;
  /** The new pipeline's name: kebab-case. */
  readonly name: string;
  /** A CSV sample file, or (`json`) a JSON sample file or URL; exactly one. */
  readonly csv?: string;
  readonly json?: string;
  /**
   * A select on a SQL source's database (`--sql`), with the `IDEM_SOURCES` name of that database
   * (`--source`) and its URL: the columns are inferred from its first rows.
   */
  readonly sql?: { readonly query: string; readonly database: string; readonly url: string };
  /** The source field of the business key. @defaultValue proposed: the first field unique and present in every sample row */
  readonly key?: string;
  /** IANA zone of the business date, and of instants written without an offset. @defaultValue 'UTC' */
  readonly timeZone?: string;
  /** CSV fields read as NULL. @defaultValue ['', 'NA', 'NULL'] */
  readonly nullValues?: readonly string[];
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
  if ([request.csv, request.json, request.sql].filter((sample) => sample !== undefined).length !== 1) {
    throw new UsageError('idem new needs exactly one sample: --csv FILE, --json URL_OR_FILE or --sql "SELECT …" --source NAME');
  }
  const timeZone = request.timeZone ?? 'UTC';
  if (!IANAZone.isValidZone(timeZone)) throw new UsageError(`--time-zone must be an IANA time zone (got ${JSON.stringify(timeZone)})`);
  const fixtureRows = request.fixtureRows ?? 100;
  const nullValues = request.nullValues ?? ['', 'NA', 'NULL'];

  let fields: readonly string[];
  let rows: readonly Readonly<Record<string, unknown>>[];
  let fixtureText: string;
  let fixtureCount: number;
  let source: ScaffoldPlan['source'];
  if (request.csv !== undefined) {
    const sample = readCsvSample(request.csv, nullValues);
    fields = sample.header;
    rows = sample.rows;
    const kept = sample.recordTexts.slice(0, fixtureRows);
    fixtureText = `${[sample.headerText, ...kept].join('\n')}\n`;
    fixtureCount = kept.length;
    source = { kind: 'csv', nullValues, lastLineBreak: sample.endsWithLineBreak ? 'required' : 'optional', sample: path.basename(request.csv) };
  } else if (request.sql !== undefined) {
    const { query, database, url } = request.sql;
    const sample = await sampleSqlQuery(url, projectDir, database, query, SQL_SAMPLE_ROWS);
    fields = sample.fields;
    rows = sample.rows;
    fixtureText = `${JSON.stringify(sample.rows.slice(0, fixtureRows), null, 2)}\n`;
    fixtureCount = Math.min(fixtureRows, sample.rows.length);
    source = { kind: 'sql', database, sql: query.trim().replace(/;+$/, ''), rangeColumn: undefined, sample: `--sql on ${database}` };
  } else {
    const sample = await readJsonSample(request.json!);
    fields = sample.fields;
    rows = sample.items;
    const kept = sample.items.slice(0, fixtureRows);
    fixtureText = `${JSON.stringify(sample.itemsProperty === undefined ? kept : { [sample.itemsProperty]: kept }, null, 2)}\n`;
    fixtureCount = kept.length;
    source = { kind: 'http-json', path: sample.path, paging: sample.paging, itemsProperty: sample.itemsProperty, baseUrl: sample.baseUrl, sample: request.json! };
  }

  const key = request.key ?? proposeKey(fields, rows);
  if (key === undefined) throw new UsageError(`no field of the sample is present and unique in every row, so none can be the business key: name it with --key FIELD (fields: ${fields.join(', ')})`);
  if (!fields.includes(key)) throw new UsageError(`--key ${key} is not a field of the sample (fields: ${fields.join(', ')})`);
  if (request.key !== undefined && proposeKey([key], rows) === undefined) {
    throw new UsageError(`--key ${key} is missing or repeated in the sample: a business key must be present and unique in every row`);
  }

  const taken = new Set<string>();
  const columns: (readonly [string, ColumnSpec])[] = [];
  const renamed: Record<string, string> = {};
  for (const field of fields) {
    if (field === key) continue;
    const column = columnName(field, taken);
    if (column !== field) renamed[column] = field;
    columns.push([column, inferColumn(rows.map((row) => row[field] ?? null), request.csv !== undefined ? 'text' : 'json', timeZone)]);
  }
  // A SQL source's range filters the first instant column (the author moves it where another dates a row).
  if (source.kind === 'sql') {
    const instant = columns.find(([, spec]) => spec.type === 'instant')?.[0];
    source = { ...source, rangeColumn: instant === undefined ? undefined : (renamed[instant] ?? instant) };
  }
  if (columns.length === 0) throw new UsageError('the sample has no field besides the key: a pipeline needs at least one column');

  const table = name.replaceAll('-', '_');
  const extension = source.kind === 'csv' ? 'csv' : 'json';
  // A SQL source's sample rows go in no fixture: its test and proof read a stand-in database
  // (stand-ins/<pipeline>.ts), which knows the query's tables.
  const plan: ScaffoldPlan = {
    name,
    timeZone,
    key,
    columns,
    fields: renamed,
    tables: { staging: `stg_${table}`.slice(0, 63), target: table },
    source,
    fixture: `fixtures/${name}/sample.${extension}`,
    fixtureRows: fixtureCount,
  };
  const migrationsDir = path.join(projectDir, 'migrations');
  const files: [string, string][] = [
    [`pipelines/${name}.ts`, renderPipelineModule(plan)],
    [`migrations/${migrationStamp(migrationsDir)}_create_${table}.ts`, renderPipelineMigration(plan)],
    ...(source.kind === 'sql'
      ? []
      : ([
          [plan.fixture, fixtureText],
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
