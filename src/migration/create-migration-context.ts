import type { Knex } from 'knex';
import { column, type ColumnSpec, type ColumnSpecs } from '../column/column-type.ts';
import { compositeSourceReference } from '../pipeline/composite-source-reference.ts';
import { rowHashOfJson } from '../pipeline/row-hash.ts';
import { assertUniqueKey } from './assert-unique-key.ts';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import type { MigrationContext } from './migration-context.ts';
import { RECORD_DELETION_SPECS } from './pipeline-framework-columns.ts';

/** Business keys and run keys: long enough for any reference, short enough for every unique index. */
const KEY = column.text({ maxLength: 200 });
/** `row_hash`: SHA-256 in hex. */
const HASH = column.text({ maxLength: 64 });

/** idem's columns that `adoptTable` adds to an existing table, as `createPipelineTables` makes them. */
const ADOPTED_COLUMNS: readonly (readonly [string, ColumnSpec])[] = [
  ['source_system', KEY],
  ['source_reference', KEY],
  ['row_hash', HASH],
  ['first_run_key', KEY],
  ['last_changed_run_key', KEY],
  ['created_at', column.instant()],
  ['updated_at', column.instant()],
];
/** The run key `adoptTable` records as the first and last change of the rows it adopts. */
const ADOPTED_RUN_KEY = 'adopted';
/** Rows `adoptTable` reads and updates per page. */
const ADOPT_PAGE_ROWS = 1_000;

/** The index {@link MigrationContext.createScopeIndex} makes on a target's `scopeFrom` column. */
const scopeIndexName = (table: string, column: string): string => `${table}_${column}_idx`;

/** Builds the {@link MigrationContext} for one database. */
export function createMigrationContext(knex: Knex, adapter: DialectAdapter): MigrationContext {
  const addColumn = adapter.addColumn.bind(adapter);
  const createStagingTable = (staging: string, columns: ColumnSpecs): Promise<void> =>
    knex.schema.createTable(staging, (t) => {
      t.bigInteger('seq').notNullable().primary();
      addColumn(t, 'run_key', KEY);
      addColumn(t, 'source_system', KEY);
      addColumn(t, 'source_reference', KEY);
      addColumn(t, 'source_line', column.integer({ nullable: true }));
      addColumn(t, 'row_hash', HASH);
      for (const [name, spec] of Object.entries(columns)) addColumn(t, name, spec);
      t.index(['source_system', 'source_reference'], `${staging}_key_idx`);
    });
  return {
    addColumn,
    async createPipelineTables({ staging, target, columns }) {
      await createStagingTable(staging, columns);
      await knex.schema.createTable(target, (t) => {
        t.bigIncrements('id').primary();
        addColumn(t, 'source_system', KEY);
        addColumn(t, 'source_reference', KEY);
        for (const [name, spec] of Object.entries(columns)) addColumn(t, name, spec);
        addColumn(t, 'row_hash', HASH);
        addColumn(t, 'first_run_key', KEY);
        addColumn(t, 'last_changed_run_key', KEY);
        addColumn(t, 'created_at', column.instant());
        addColumn(t, 'updated_at', column.instant());
        for (const [name, spec] of Object.entries(RECORD_DELETION_SPECS)) addColumn(t, name, spec);
        t.unique(['source_system', 'source_reference'], { indexName: `${target}_key_uq` });
      });
    },
    async alterColumns(table, { add = {}, alter = {}, drop = [], fill = {} }) {
      const notNullAdded = Object.entries(add).filter(([, spec]) => !spec.nullable);
      const strays = Object.keys(fill).filter((name) => !notNullAdded.some(([added]) => added === name));
      if (strays.length > 0) throw new Error(`alterColumns('${table}'): fill names ${strays.join(', ')}, which this call does not add as NOT NULL columns`);
      // Refused before any change (MySQL commits each ALTER at once): nothing to undo by hand.
      const unfilled = notNullAdded.filter(([name]) => fill[name] === undefined).map(([name]) => name);
      if (unfilled.length > 0 && (await knex(table).select(knex.raw('1 as one')).limit(1)).length > 0) {
        throw new Error(
          `table ${table} has rows, and the new NOT NULL column${unfilled.length > 1 ? 's' : ''} ${unfilled.join(', ')} ${unfilled.length > 1 ? 'have' : 'has'} no value for them: ` +
            "set one in this migration's `fill` (a canonical value of the column's type), or declare the column nullable",
        );
      }
      await knex.schema.alterTable(table, (t) => {
        // Added nullable first: SQLite refuses to add a NOT NULL column without a default.
        for (const [name, spec] of Object.entries(add)) adapter.addColumn(t, name, { ...spec, nullable: true });
        if (drop.length > 0) t.dropColumns(...drop);
      });
      for (const [name, spec] of notNullAdded) {
        if (fill[name] !== undefined) await knex(table).whereNull(name).update({ [name]: adapter.toDriverValue(spec, fill[name]) as Knex.Value });
      }
      const altered = [...notNullAdded, ...Object.entries(alter)];
      if (altered.length === 0) return;
      await knex.schema.alterTable(table, (t) => {
        for (const [name, spec] of altered) adapter.addColumn(t, name, spec).alter();
      });
    },
    async adoptTable({ staging, target, columns, sourceSystem, key }) {
      const keys = typeof key === 'string' ? [key] : [...key];
      await assertUniqueKey({ knex, adapter }, target, keys);
      if ((await adapter.readTableColumns(knex, staging)) === undefined) await createStagingTable(staging, columns);
      const present = new Set((await adapter.readTableColumns(knex, target))?.map((c) => c.name));
      const added = ADOPTED_COLUMNS.filter(([name]) => !present.has(name));
      if (added.length > 0) await knex.schema.alterTable(target, (t) => { for (const [name, spec] of added) addColumn(t, name, { ...spec, nullable: true }); });
      const names = Object.keys(columns);
      const adoptedAt = adapter.toDriverValue(column.instant(), new Date().toISOString()) as Knex.Value;
      // Pages of the rows not adopted yet (a migration stopped half-way resumes), each page's updates
      // in one transaction, each row found by its key (unique and NOT NULL, proven above).
      for (;;) {
        const rows = (await knex(target).select([...new Set([...keys, ...names])]).whereNull('row_hash').orderBy(keys).limit(ADOPT_PAGE_ROWS)) as Record<string, unknown>[];
        if (rows.length === 0) break;
        await knex.transaction(async (trx) => {
          for (const row of rows) {
            const parts = keys.map((name) => {
              const value = columns[name] ? adapter.fromDriverValue(columns[name], row[name]) : row[name];
              if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'bigint') {
                throw new Error(`adoptTable('${target}'): the key ${name} must hold text or whole numbers (found ${JSON.stringify(value)})`);
              }
              return String(value);
            });
            const reference = parts.length === 1 ? parts[0]! : compositeSourceReference(parts);
            const valuesJson = names.map((name) => {
              const spec = columns[name]!;
              return spec.type === 'json' ? (adapter.fromDriverJsonText(row[name]) ?? 'null') : JSON.stringify(adapter.fromDriverValue(spec, row[name]) ?? null);
            });
            await trx(target).where(Object.fromEntries(keys.map((name) => [name, row[name]])) as Record<string, Knex.Value>).update({
              source_system: sourceSystem,
              source_reference: reference,
              row_hash: rowHashOfJson(sourceSystem, reference, valuesJson),
              first_run_key: ADOPTED_RUN_KEY,
              last_changed_run_key: ADOPTED_RUN_KEY,
              created_at: adoptedAt,
              updated_at: adoptedAt,
            });
          }
        });
      }
      await knex.schema.alterTable(target, (t) => { for (const [name, spec] of ADOPTED_COLUMNS) addColumn(t, name, spec).alter(); });
      if (!(await adapter.readIndexNames(knex, target)).includes(`${target}_key_uq`)) {
        await knex.schema.alterTable(target, (t) => t.unique(['source_system', 'source_reference'], { indexName: `${target}_key_uq` }));
      }
    },
    async unadoptTable({ staging, target }) {
      await knex.schema.dropTableIfExists(staging);
      if ((await adapter.readIndexNames(knex, target)).includes(`${target}_key_uq`)) await knex.schema.alterTable(target, (t) => t.dropUnique(['source_system', 'source_reference'], `${target}_key_uq`));
      await knex.schema.alterTable(target, (t) => t.dropColumns(...ADOPTED_COLUMNS.map(([name]) => name)));
    },
    async createDerivedTable({ table, scope = 'business_date', columns }) {
      if (!(scope in columns)) throw new Error(`createDerivedTable('${table}'): the scope column ${scope} is not one of its columns (${Object.keys(columns).join(', ')})`);
      await knex.schema.createTable(table, (t) => {
        for (const [name, spec] of Object.entries(columns)) addColumn(t, name, spec);
        t.index([scope], `${table}_scope_idx`);
      });
    },
    async createScopeIndex({ table, column: name }) {
      const index = scopeIndexName(table, name);
      if (!(await adapter.readIndexNames(knex, table)).includes(index)) await knex.schema.alterTable(table, (t) => t.index([name], index));
    },
    async dropScopeIndex({ table, column: name }) {
      const index = scopeIndexName(table, name);
      if ((await adapter.readIndexNames(knex, table)).includes(index)) await knex.schema.alterTable(table, (t) => t.dropIndex([name], index));
    },
    async createChildTable({ table, columns }) {
      await knex.schema.createTable(table, (t) => {
        addColumn(t, 'source_system', KEY);
        addColumn(t, 'source_reference', KEY);
        addColumn(t, 'line_no', column.integer());
        for (const [name, spec] of Object.entries(columns)) addColumn(t, name, spec);
        t.primary(['source_system', 'source_reference', 'line_no'], `${table}_pk`);
      });
    },
    async dropTables(tables) {
      for (const table of tables) await knex.schema.dropTableIfExists(table);
    },
    async dropPipelineTables({ staging, target }) {
      await knex.schema.dropTableIfExists(target);
      await knex.schema.dropTableIfExists(staging);
    },
  };
}
