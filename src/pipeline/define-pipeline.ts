import { IANAZone } from 'luxon';
import { postStrategyOf } from '../destination/post-strategy-registry.ts';
import { httpSettingsProblem } from '../http/http-settings.ts';
import { columnsRowSchema } from '../source/columns-row-schema.ts';
import { findSourceKind, sourceKindOf } from '../source/source-kinds.ts';
import type { SourceRow } from '../source/source-row.ts';
import type { ColumnSpecs } from '../column/column-type.ts';
import type { PipelineDefinition } from './pipeline-definition.ts';
import type { PipelineRecord } from './pipeline-record.ts';
import { compositeSourceReference } from './composite-source-reference.ts';
import { RECORD_DELETION_COLUMNS } from './record-deletions.ts';
import { PipelineDefinitionError } from './pipeline-definition-error.ts';
import { pipelineDefinitionProblems } from './pipeline-definition-schema.ts';
import type { DerivedTableDefinition } from './derived-table-definition.ts';
import { SQL_IDENTIFIER, tableDefinitionProblems } from './table-definition-problems.ts';

/**
 * Whether `zone` is an IANA time zone this runtime knows. A canonical name is looked up in
 * `Intl.supportedValuesOf('timeZone')` (about 1 ms); anything else (an alias such as `US/Eastern`,
 * a name in other case) goes to luxon's `IANAZone.isValidZone`, which builds an
 * `Intl.DateTimeFormat` in that zone: 50–150 ms of ICU set-up at a process's first use, paid by
 * every no-op run that needs no time zone maths otherwise.
 */
function isIanaZone(zone: string): boolean {
  return Intl.supportedValuesOf('timeZone').includes(zone) || IANAZone.isValidZone(zone);
}

const PIPELINE_NAME = /^[a-z][a-z0-9-]{0,62}$/;
const RESERVED_COLUMNS = new Set([
  'id', 'seq', 'run_key', 'source_system', 'source_reference', 'source_line', 'row_hash',
  'first_run_key', 'last_changed_run_key', 'created_at', 'updated_at', ...RECORD_DELETION_COLUMNS,
]);

/** Marks an object made by {@link definePipeline}; not enumerable, so a spread copy is unmarked. */
const DEFINED = Symbol.for('idem.pipeline-definition');

/** Whether `value` was made by {@link definePipeline} (in this or any other copy of idem). */
export function isPipelineDefinition(value: unknown): value is PipelineDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DEFINED] === true;
}

/**
 * Declares a pipeline. Validates the whole definition when the module is imported, so a mistake
 * fails `idem check`, `idem pipelines` and every run (exit 2) with the field, the value and the
 * rule, instead of acting as something else later: every key, enum and shape by
 * `PipelineDefinitionSchema` (zod; source options included), then names, the time zone, the
 * columns, the destinations (their `http` settings by the same rules as `IDEM_DESTINATIONS`), and
 * a CSV source's `header` against its row schema's keys (a key the header lacks is never read).
 * `Columns` is inferred from `columns` (each builder carries its type and nullability), and types
 * `row.values` in the callbacks of a destination declared inline: a name that is no column is a
 * compile error (and a `PipelineError` at run time, see `postedValues`).
 *
 * @example
 * export const pipeline = definePipeline({
 *   name: 'online-retail-invoices', sourceSystem: 'online-retail', timeZone: 'Europe/London', …
 * });
 * @throws PipelineDefinitionError (a TypeError) listing every problem found.
 */
export function definePipeline<Row, Columns extends ColumnSpecs = ColumnSpecs>(
  definition: Omit<PipelineDefinition<Row, Columns>, 'duplicateKeys' | 'description' | 'destinations' | 'toRecords' | 'derived' | 'children'> &
    Partial<Pick<PipelineDefinition<Row, Columns>, 'duplicateKeys' | 'description' | 'destinations' | 'toRecords' | 'children'>> & {
      /** Derived tables; each `scope` defaults to `'business_date'`. @defaultValue [] */
      readonly derived?: readonly (Omit<DerivedTableDefinition, 'scope'> & { readonly scope?: string })[];
    },
): PipelineDefinition<Row, Columns> {
  const problems: string[] = [];
  const check = (ok: boolean, field: string, rule: string, value: unknown): void => {
    if (!ok) problems.push(`pipeline ${field} ${rule} (got ${JSON.stringify(value)})`);
  };
  const { key } = definition;
  for (const [name, field] of Object.entries(definition.fields ?? {})) {
    check(name in (definition.columns ?? {}), `fields.${name}`, 'must name a declared column', name);
    check(typeof field === 'string' && field.length > 0, `fields.${name}`, 'must name a source field', field);
  }
  const keys = key === undefined ? undefined : typeof key === 'string' ? [key] : [...key];
  check(keys === undefined || (keys.length > 0 && keys.every((field) => typeof field === 'string' && field.length > 0)), 'key', 'must name a source field, or several', key);
  check(keys === undefined || new Set(keys).size === keys.length, 'key', 'must name each field once', key);
  // Without a key, source.row and toRecords are required: the schema below names them if missing.
  const filled: PipelineDefinition<Row, Columns> = {
    description: '',
    duplicateKeys: 'error' as const,
    ...definition,
    source: keys === undefined || problems.length > 0 ? definition.source : withDerivedRow(definition.source, keys, definition),
    // Left undefined without a key, for the schema to name.
    toRecords: (definition.toRecords ?? (keys === undefined ? undefined : recordPerRow(keys, Object.keys(definition.columns ?? {}), definition.source?.tombstone as ((row: unknown) => boolean) | undefined)))!,
    destinations: definition.destinations ?? [],
    derived: (definition.derived ?? []).map((derived) => ({ scope: 'business_date', ...derived })),
    children: definition.children ?? [],
  };
  const shapeProblems = pipelineDefinitionProblems(filled);
  if (problems.length + shapeProblems.length > 0) throw new PipelineDefinitionError([...problems, ...shapeProblems.map((problem) => `pipeline ${problem}`)]);
  check(PIPELINE_NAME.test(definition.name), 'name', 'must be kebab-case, at most 63 characters', definition.name);
  check(definition.sourceSystem.length > 0, 'sourceSystem', 'must not be empty', definition.sourceSystem);
  check(isIanaZone(definition.timeZone), 'timeZone', 'must be an IANA time zone', definition.timeZone);
  for (const key of ['staging', 'target'] as const) {
    const table = definition.tables[key];
    check(SQL_IDENTIFIER.test(table), `tables.${key}`, 'must be a snake_case SQL identifier', table);
  }
  const names = Object.keys(definition.columns);
  check(names.length > 0, 'columns', 'must declare at least one business column', names);
  for (const name of names) {
    check(SQL_IDENTIFIER.test(name), `columns.${name}`, 'must be a snake_case SQL identifier', name);
    check(!RESERVED_COLUMNS.has(name), `columns.${name}`, 'is a framework column name', name);
    const spec = definition.columns[name]!;
    for (const [option, type] of [['id', 'text'], ['wallTime', 'instant'], ['shape', 'json']] as const) {
      check(spec[option] === undefined || spec.type === type, `columns.${name}.${option}`, `is an option of a ${type} column`, spec.type);
    }
    if (spec.type === 'decimal') {
      const { precision = 0, scale = -1 } = spec;
      check(Number.isInteger(precision) && precision >= 1 && precision <= 38, `columns.${name}.precision`, 'must be 1..38', precision);
      check(Number.isInteger(scale) && scale >= 0 && scale <= precision, `columns.${name}.scale`, 'must be 0..precision', scale);
    }
  }
  const { source } = filled;
  if (source.snapshot === undefined) {
    for (const option of ['snapshotScope', 'maxDeleteShare'] as const) check(source[option] === undefined, `source.${option}`, "is an option of snapshot: 'full'", source[option]);
  } else {
    check(source.snapshotScope === undefined || names.includes(source.snapshotScope), 'source.snapshotScope', 'must name a declared column', source.snapshotScope);
    check(sourceKindOf(source).incremental?.(source) === undefined, 'source.snapshot', 'cannot be full for an incremental source (a read of changes sees no absence: declare a tombstone)', source.snapshot);
  }
  for (const problem of sourceKindOf(source).problems?.(source) ?? []) problems.push(`pipeline ${problem}`);
  const destinations = filled.destinations;
  for (const [i, destination] of destinations.entries()) {
    check(PIPELINE_NAME.test(destination.name), `destinations[${i}].name`, 'must be kebab-case, at most 63 characters', destination.name);
    check(!postStrategyOf(destination.strategy).needsLookup || destination.lookup !== undefined, `destinations[${i}].lookup`, `is required by ${destination.strategy}`, undefined);
    const { settleDelayMs } = destination;
    check(settleDelayMs === undefined || (Number.isInteger(settleDelayMs) && settleDelayMs >= 0), `destinations[${i}].settleDelayMs`, 'must be an integer ≥ 0 (ms)', settleDelayMs);
    const httpProblem = httpSettingsProblem(destination.http ?? {});
    if (httpProblem !== undefined) problems.push(`pipeline destinations[${i}].${httpProblem}`);
  }
  check(new Set(destinations.map((d) => d.name)).size === destinations.length, 'destinations', 'must have unique names', destinations.map((d) => d.name));
  if (problems.length === 0) for (const problem of tableDefinitionProblems(filled)) problems.push(`pipeline ${problem}`);
  if (problems.length > 0) throw new PipelineDefinitionError(problems);
  Object.defineProperty(filled, DEFINED, { value: true, enumerable: false });
  return Object.freeze(filled);
}

/** The source with a row schema derived from the columns (and a CSV header from it) where it declares none. */
function withDerivedRow<Row>(source: PipelineDefinition<Row>['source'], keys: readonly string[], definition: Pick<PipelineDefinition<Row>, 'columns' | 'timeZone' | 'fields'>): PipelineDefinition<Row>['source'] {
  if (source.row !== undefined) return source;
  // A kind that is neither built in nor an object of the contract is named by the schema's check.
  const kind = findSourceKind(source);
  if (kind === undefined) return source;
  const fields = definition.fields ?? {};
  const numberFormat = kind.numberFormat?.(source as never);
  const row = columnsRowSchema({ key: keys, columns: definition.columns, fields, form: kind.fieldForm, timeZone: definition.timeZone, ...(numberFormat ? { numberFormat } : {}) });
  return kind.withDerivedRow(source, { row, fields: [...keys, ...Object.keys(definition.columns).map((name) => fields[name] ?? name)] });
}

/**
 * The default `toRecords` of a pipeline with a key: each row is the record of its key (one
 * field's text, or several as `compositeSourceReference`), with the columns' fields as values, and
 * `deleted` where the source's `tombstone` says so.
 */
function recordPerRow(keys: readonly string[], columns: readonly string[], tombstone: ((row: unknown) => boolean) | undefined): PipelineDefinition['toRecords'] {
  const [single] = keys;
  const referenceOf = keys.length === 1 ? (value: Record<string, unknown>) => String(value[single!]) : (value: Record<string, unknown>) => compositeSourceReference(keys.map((field) => String(value[field])));
  return async function* (rows: AsyncIterable<SourceRow<Record<string, unknown>>>): AsyncGenerator<PipelineRecord> {
    for await (const { line, value } of rows) {
      const values: Record<string, unknown> = {};
      for (const name of columns) values[name] = value[name];
      yield { sourceReference: referenceOf(value), line, values, ...(tombstone?.(value) ? { deleted: true } : {}) };
    }
  };
}
