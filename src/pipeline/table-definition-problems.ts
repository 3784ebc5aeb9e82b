import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import { columnSpecSource } from '../column/column-spec-source.ts';
import type { ColumnSpecs } from '../column/column-type.ts';
import type { DerivedScope, DerivedTableDefinition } from './derived-table-definition.ts';
import type { PipelineDefinition } from './pipeline-definition.ts';

/** A table or column name: snake_case, at most 63 characters (PostgreSQL's limit). */
export const SQL_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/** The columns idem gives every child table before its declared ones. */
export const CHILD_KEY_COLUMNS = ['source_system', 'source_reference', 'line_no'] as const;

/** The scope `definePipeline` builds each derived query with: values no query would write by chance. */
const PROBE_SCOPE: DerivedScope = { value: '1999-12-31', start: '1999-12-31T00:00:00.000Z~idem-probe-start', end: '2000-01-01T00:00:00.000Z~idem-probe-end' };

/**
 * Why a derived table's built query does not filter on its scope, or undefined when it does:
 * the query without its select list and order (knex's `clearSelect`, `clearOrder`) must bind
 * `scope.value`, or both `scope.start` and `scope.end` (read from knex's `toSQL().bindings`, never
 * from the SQL text). A scope bound only in the select list selects it; it does not filter.
 */
export function scopeFilterProblem(query: unknown, scope: DerivedScope): string | undefined {
  const built = query as Partial<Knex.QueryBuilder> | undefined;
  if (typeof built?.toSQL !== 'function' || typeof built.clone !== 'function') return 'must return a knex query builder (the target builder it is given, with its clauses)';
  const filters = built.clone().clearSelect().clearOrder().toSQL();
  const bindings = (Array.isArray(filters) ? filters.flatMap((part) => part.bindings) : filters.bindings) as unknown[];
  if (bindings.includes(scope.value) || (bindings.includes(scope.start) && bindings.includes(scope.end))) return undefined;
  return 'must filter on the scope with a bound parameter (a where on scope.value, or on both scope.start and scope.end): the rows of another scope would be written into this one';
}

let probeKnex: Knex | undefined;
/** A knex without a connection (nothing is sent), loaded only by a pipeline that declares derived tables. */
function knexForProbe(): Knex {
  const knex = createRequire(import.meta.url)('knex') as (config: Knex.Config) => Knex;
  return (probeKnex ??= knex({ client: 'pg' }));
}

function columnProblems(field: string, columns: ColumnSpecs | undefined): string[] {
  const names = Object.keys(columns ?? {});
  const problems = names.length === 0 ? [`${field} must declare at least one column (got [])`] : [];
  for (const name of names) {
    if (!SQL_IDENTIFIER.test(name)) problems.push(`${field}.${name} must be a snake_case SQL identifier (got ${JSON.stringify(name)})`);
  }
  return problems;
}

function derivedProblems(pipeline: PipelineDefinition, derived: DerivedTableDefinition, field: string): string[] {
  const problems = columnProblems(`${field}.columns`, derived.columns);
  const scopeSpec = derived.columns[derived.scope];
  if (scopeSpec === undefined) {
    problems.push(`${field}.scope names no column of ${derived.table}: declare ${derived.scope}: column.date() in its columns, or name its scope column (got ${JSON.stringify(derived.scope)}; columns ${Object.keys(derived.columns).join(', ')})`);
  } else if (scopeSpec.type !== 'date' && !(scopeSpec.type === 'text' && scopeSpec.maxLength !== undefined && scopeSpec.maxLength <= 200)) {
    // Indexed by every dialect: MySQL indexes no unbounded text.
    problems.push(`${field}.columns.${derived.scope} holds the scope (a business date): must be column.date(), or column.text({ maxLength: n }) with n ≤ 200 (got ${columnSpecSource(scopeSpec)})`);
  }
  if (derived.scopeFrom !== undefined) {
    const type = pipeline.columns[derived.scopeFrom]?.type;
    if (type !== 'date' && type !== 'instant') problems.push(`${field}.scopeFrom must name a date or instant column of the pipeline (got ${JSON.stringify(derived.scopeFrom)}${type ? `, a ${type} column` : ''})`);
  }
  const knex = knexForProbe();
  let problem: string | undefined;
  try {
    problem = scopeFilterProblem(derived.query(knex(pipeline.tables.target), PROBE_SCOPE, knex.raw.bind(knex) as Knex.RawBuilder), PROBE_SCOPE);
  } catch (error) {
    problem = `threw when built with a probe scope: ${(error as Error).message}`;
  }
  if (problem !== undefined) problems.push(`${field}.query ${problem}`);
  return problems;
}

/**
 * The problems of a definition's derived and child tables, one line each naming the field, the
 * table and the rule (`definePipeline` prefixes `pipeline `): names, columns, the scope column
 * declared (a date, or bounded text), `scopeFrom`, each derived query built once and checked by
 * {@link scopeFilterProblem}, a child's `list` a json column, and every table name unique.
 */
export function tableDefinitionProblems(pipeline: PipelineDefinition): string[] {
  const problems: string[] = [];
  const tables = [pipeline.tables.staging, pipeline.tables.target];
  const name = (field: string, table: string): void => {
    if (!SQL_IDENTIFIER.test(table)) problems.push(`${field}.table must be a snake_case SQL identifier (got ${JSON.stringify(table)})`);
    else if (tables.includes(table)) problems.push(`${field}.table is another table of the pipeline (got ${JSON.stringify(table)})`);
    tables.push(table);
  };
  for (const [i, derived] of pipeline.derived.entries()) {
    const field = `derived[${i}] (${derived.table})`;
    name(field, derived.table);
    problems.push(...derivedProblems(pipeline, derived, field));
  }
  for (const [i, child] of pipeline.children.entries()) {
    const field = `children[${i}] (${child.table})`;
    name(field, child.table);
    problems.push(...columnProblems(`${field}.columns`, child.columns));
    for (const key of CHILD_KEY_COLUMNS) if (key in child.columns) problems.push(`${field}.columns.${key} is idem's key column of a child table (got ${key})`);
    const type = pipeline.columns[child.list]?.type;
    if (type !== 'json') problems.push(`${field}.list must name a json column of the pipeline that holds the list (got ${JSON.stringify(child.list)}${type ? `, a ${type} column` : ''})`);
  }
  return problems;
}
