import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { columnSpecSource } from '../column/column-spec-source.ts';
import type { ColumnSpec } from '../column/column-type.ts';
import type { Database } from '../db/database.ts';
import { UsageError } from '../errors/usage-error.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { singleQuoted } from '../text/single-quoted.ts';
import { assertUniqueKey } from './assert-unique-key.ts';
import { findSchemaDrift } from './find-schema-drift.ts';
import { formatSchemaDrift, suggestedMigrationName } from './format-schema-drift.ts';
import type { SchemaDifference } from './schema-difference.ts';

/** What `idem migrate --make` did. */
export interface MadeMigration {
  /** The differences the migration removes; `[]` when there were none (and no file was written). */
  readonly differences: readonly SchemaDifference[];
  /** The migration file written, relative to the project directory; undefined when none. */
  readonly file?: string;
}

const MIGRATION_NAME = /^[a-z0-9_]+$/;

/** `<yyyyMMddHHmmss>_<name>`, after every existing migration (append-only order). */
function migrationFileName(dir: string, name: string, now: DateTime): string {
  const existing = existsSync(dir) ? readdirSync(dir).filter((file) => /^\d{14}_/.test(file)).map((file) => file.slice(0, 14)).sort() : [];
  let stamp = now.toUTC().toFormat('yyyyLLddHHmmss');
  const last = existing.at(-1);
  // A clock behind the newest migration's stamp still appends: one second after it.
  if (last !== undefined && stamp <= last) stamp = DateTime.fromFormat(last, 'yyyyLLddHHmmss', { zone: 'utc' }).plus({ seconds: 1 }).toFormat('yyyyLLddHHmmss');
  return `${stamp}_${name}.ts`;
}

const specsSource = (entries: readonly (readonly [string, ColumnSpec])[], indent: string): string =>
  `{\n${entries.map(([name, spec]) => `${indent}  ${name}: ${columnSpecSource(spec)},`).join('\n')}\n${indent}}`;

/** Whether a pipeline's differences are those of a target table idem did not create: no staging table, a target without `source_reference`. */
function isAdoption(pipeline: PipelineDefinition, differences: readonly SchemaDifference[]): boolean {
  const { staging, target } = pipeline.tables;
  return differences.some((d) => d.table === staging && d.kind === 'missing-table') && differences.some((d) => d.table === target && d.kind === 'missing-column' && d.column === 'source_reference');
}

/**
 * The statements that make an existing table idem did not create (no `source_reference`, no
 * staging table) the pipeline's target: its business columns brought in line first, then
 * `adoptTable`. The rows were proven uniquely keyed by {@link makeMigration}.
 */
function adoptionStatements(pipeline: PipelineDefinition, differences: readonly SchemaDifference[]): { up: string[]; down: string[] } {
  const { staging, target } = pipeline.tables;
  const business = differences.filter((d) => d.table === target && (d.kind !== 'missing-column' || d.declared !== undefined));
  // Declared columns added and changed before (the row hash reads them), undeclared ones dropped
  // after (the key's own column among them, once its values are the source references).
  const statements = (kinds: readonly SchemaDifference['kind'][]) => {
    const mine = business.filter((d) => kinds.includes(d.kind));
    return mine.length > 0 ? pipelineStatements(pipeline, mine) : { up: [], down: [] };
  };
  const before = statements(['missing-column', 'changed-column']);
  const after = statements(['extra-column']);
  const tables = `staging: '${staging}', target: '${target}'`;
  const adopt =
    `await idem.adoptTable({\n    ${tables},\n    sourceSystem: ${JSON.stringify(pipeline.sourceSystem)},\n    key: ${typeof pipeline.key === 'string' ? singleQuoted(pipeline.key) : `[${pipeline.key!.map(singleQuoted).join(', ')}]`},\n` +
    `    columns: ${specsSource(Object.entries(pipeline.columns), '    ')},\n  });`;
  return { up: [...before.up, adopt, ...after.up], down: [...after.down, `await idem.unadoptTable({ ${tables} });`, ...before.down] };
}

/** Refuses, before a migration is written, a table idem did not create that no generated migration can adopt: no `key` column, or rows that share or lack a key. */
async function assertAdoptable(db: Database, pipeline: PipelineDefinition): Promise<void> {
  const { key } = pipeline;
  const live = await db.adapter.readTableColumns(db.knex, pipeline.tables.target);
  const keys = key === undefined ? [] : typeof key === 'string' ? [key] : [...key];
  const absent = keys.filter((name) => !live?.some((c) => c.name === name));
  if (keys.length === 0 || absent.length > 0) {
    throw new UsageError(
      `pipeline ${pipeline.name}: table ${pipeline.tables.target} exists and was not created by idem; idem migrate --make adopts such a table ` +
        `when the pipeline's key names its columns${keys.length === 0 ? ' (this pipeline has no key)' : ` (it has no column ${absent.join(', ')})`}: ` +
        'write this migration by hand (docs/operating.md, "Adopting an existing table")',
    );
  }
  await assertUniqueKey(db, pipeline.tables.target, keys);
}

/** The `up` and `down` statements for one pipeline's differences. */
function pipelineStatements(pipeline: PipelineDefinition, differences: readonly SchemaDifference[]): { up: string[]; down: string[] } {
  const { staging, target } = pipeline.tables;
  const missingTables = new Set(differences.filter((difference) => difference.kind === 'missing-table').map((difference) => difference.table));
  const missing = new Set(differences.filter((difference) => difference.kind === 'missing-table' && (difference.role === 'staging' || difference.role === 'target')).map((difference) => difference.role as 'staging' | 'target'));
  const up: string[] = [];
  const down: string[] = [];
  if (missing.size === 2) {
    const tables = `staging: '${staging}', target: '${target}'`;
    up.push(`await idem.createPipelineTables({\n    ${tables},\n    columns: ${specsSource(Object.entries(pipeline.columns), '    ')},\n  });`);
    down.push(`await idem.dropPipelineTables({ ${tables} });`);
  }
  // Derived and child tables after the pipeline's own: they are read from (and keyed by) its target.
  for (const derived of pipeline.derived.filter(({ table }) => missingTables.has(table))) {
    const scope = derived.scope === 'business_date' ? '' : `\n    scope: '${derived.scope}',`;
    up.push(`await idem.createDerivedTable({\n    table: '${derived.table}',${scope}\n    columns: ${specsSource(Object.entries(derived.columns), '    ')},\n  });`);
    down.unshift(`await idem.dropTables(['${derived.table}']);`);
    // Every rebuild of a date selects the target's rows of that date by the scopeFrom column.
    if (derived.scopeFrom !== undefined) {
      const index = `{ table: '${target}', column: '${derived.scopeFrom}' }`;
      up.push(`await idem.createScopeIndex(${index});`);
      down.unshift(`await idem.dropScopeIndex(${index});`);
    }
  }
  for (const child of pipeline.children.filter(({ table }) => missingTables.has(table))) {
    up.push(`await idem.createChildTable({\n    table: '${child.table}',\n    columns: ${specsSource(Object.entries(child.columns), '    ')},\n  });`);
    down.unshift(`await idem.dropTables(['${child.table}']);`);
  }
  if (isAdoption(pipeline, differences)) return adoptionStatements(pipeline, differences);
  if (missing.size === 1) {
    throw new UsageError(
      `pipeline ${pipeline.name}: table ${pipeline.tables[[...missing][0]!]} is missing but the other one exists; ` +
        'idem migrate --make cannot tell what happened: write this migration by hand',
    );
  }
  const framework = differences.find((difference) => difference.kind === 'missing-column' && !difference.declared);
  if (framework) throw new UsageError(`table ${framework.table} lacks idem's column ${framework.column}; it was not created by createPipelineTables: fix it by hand`);
  // The target first: it is the table that holds rows (staging is emptied after every run), so a
  // NOT NULL column without its `fill` is refused there before anything changed (MySQL commits
  // each ALTER at once).
  const altered = [target, staging, ...pipeline.derived.map(({ table }) => table), ...pipeline.children.map(({ table }) => table)];
  for (const table of altered.filter((name) => !missingTables.has(name))) {
    const mine = differences.filter((difference) => difference.table === table);
    if (mine.length === 0) continue;
    const add = mine.filter((d) => d.kind === 'missing-column').map((d) => [d.column!, d.declared!] as const);
    const alter = mine.filter((d) => d.kind === 'changed-column').map((d) => [d.column!, d.declared!] as const);
    const drop = mine.filter((d) => d.kind === 'extra-column').map((d) => d.column!);
    const parts: string[] = [];
    if (add.length > 0) parts.push(`    add: ${specsSource(add, '    ')},`);
    if (alter.length > 0) parts.push(`    alter: ${specsSource(alter, '    ')},`);
    if (drop.length > 0) parts.push(`    drop: [${drop.map((name) => `'${name}'`).join(', ')}],`);
    const notNull = add.filter(([, spec]) => !spec.nullable).map(([name]) => name);
    if (notNull.length > 0) {
      parts.push(
        "    // The value of each new NOT NULL column in the rows already in the table (a canonical value of its\n" +
          '    // type): added nullable, filled, then made NOT NULL. Left undefined, a table with rows is refused.\n' +
          `    fill: {\n${notNull.map((name) => `      ${name}: undefined,`).join('\n')}\n    },`,
      );
    }
    up.push(`await idem.alterColumns('${table}', {\n${parts.join('\n')}\n  });`);
    if (add.length > 0) down.push(`await idem.alterColumns('${table}', { drop: [${add.map(([name]) => `'${name}'`).join(', ')}] });`);
  }
  return { up, down };
}

/** The migration module's source. */
export function migrationSource(pipelines: readonly PipelineDefinition[], differences: readonly SchemaDifference[], madeAt: DateTime): string {
  const up: string[] = [];
  const down: string[] = [];
  for (const pipeline of pipelines) {
    const mine = differences.filter((difference) => difference.pipeline === pipeline.name);
    if (mine.length === 0) continue;
    const statements = pipelineStatements(pipeline, mine);
    up.push(...statements.up);
    down.unshift(...statements.down);
  }
  const altersTypes = differences.some((difference) => difference.kind === 'changed-column');
  const addsNotNull = differences.some((difference) => difference.kind === 'missing-column' && difference.declared && !difference.declared.nullable);
  const drops = differences.some((difference) => difference.kind === 'extra-column');
  const table = formatSchemaDrift(differences).trimEnd().split('\n').map((line) => ` *   ${line}`.trimEnd()).join('\n');
  const notes = [
    addsNotNull ? ' * - A new NOT NULL column is added nullable, filled with its `fill` value, then made NOT NULL. Set `fill` for a\n *   table with rows (the migration refuses it otherwise, before changing anything), or declare the column nullable.' : '',
    drops ? ' * - Dropped columns lose their values. Remove the drop if the column should stay.' : '',
    altersTypes ? ' * - A type change converts the stored values the database\'s way; `down` does not change them back.' : '',
  ].filter(Boolean);
  const imports = up.some((statement) => statement.includes('column.')) ? "import { column, type MigrationContext } from 'idem';" : "import type { MigrationContext } from 'idem';";
  return `import type { Knex } from 'knex';
${imports}

/**
 * Written by \`idem migrate --make\` at ${madeAt.toUTC().toISO({ suppressMilliseconds: true })} from the difference between the
 * pipelines' columns and the database:
 *
${table}
 *
 * Review it, then \`idem migrate\`. Append-only: once applied anywhere, never edit it; make another.
${notes.join('\n')}${notes.length ? '\n' : ''} */
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
${up.map((statement) => `  ${statement}`).join('\n')}
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
${down.length ? down.map((statement) => `  ${statement}`).join('\n') : '  // Nothing to undo that can be undone without losing data.'}
}
`;
}

/**
 * `idem migrate --make [NAME]`: compares every pipeline's columns with the (fully migrated)
 * database and writes one new migration in `<projectDir>/migrations/` that removes the
 * differences: `createPipelineTables` for a pipeline without tables, `alterColumns` for added,
 * changed and dropped columns, per table. Nothing is applied: the file is for review, then
 * `idem migrate`.
 *
 * @param name the migration's name (lowercase letters, digits, `_`). @defaultValue one made from the differences
 * @throws UsageError for a bad name, or a difference no generated migration can settle.
 */
export async function makeMigration(db: Database, projectDir: string, pipelines: readonly PipelineDefinition[], name?: string, now: DateTime = DateTime.utc()): Promise<MadeMigration> {
  if (name !== undefined && !MIGRATION_NAME.test(name)) throw new UsageError(`--make: a migration name is lowercase letters, digits and _ (got ${JSON.stringify(name)})`);
  const differences: SchemaDifference[] = [];
  for (const pipeline of pipelines) {
    const found = await findSchemaDrift(db, pipeline);
    if (isAdoption(pipeline, found)) await assertAdoptable(db, pipeline);
    differences.push(...found);
  }
  if (differences.length === 0) return { differences };
  const source = migrationSource(pipelines, differences, now);
  const dir = path.join(projectDir, 'migrations');
  mkdirSync(dir, { recursive: true });
  const file = migrationFileName(dir, name ?? suggestedMigrationName(differences), now);
  writeFileSync(path.join(dir, file), source, { flag: 'wx' });
  return { differences, file: path.join('migrations', file) };
}
