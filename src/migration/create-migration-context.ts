import type { Knex } from 'knex';
import { column } from '../column/column-type.ts';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import type { MigrationContext } from './migration-context.ts';
import { RECORD_DELETION_SPECS } from './pipeline-framework-columns.ts';

/** Business keys and run keys: long enough for any reference, short enough for every unique index. */
const KEY = column.text({ maxLength: 200 });
/** `row_hash`: SHA-256 in hex. */
const HASH = column.text({ maxLength: 64 });

/** Builds the {@link MigrationContext} for one database. */
export function createMigrationContext(knex: Knex, adapter: DialectAdapter): MigrationContext {
  const addColumn = adapter.addColumn.bind(adapter);
  return {
    addColumn,
    async createPipelineTables({ staging, target, columns }) {
      await knex.schema.createTable(staging, (t) => {
        t.bigInteger('seq').notNullable().primary();
        addColumn(t, 'run_key', KEY);
        addColumn(t, 'source_system', KEY);
        addColumn(t, 'source_reference', KEY);
        addColumn(t, 'source_line', column.integer({ nullable: true }));
        addColumn(t, 'row_hash', HASH);
        for (const [name, spec] of Object.entries(columns)) addColumn(t, name, spec);
        t.index(['source_system', 'source_reference'], `${staging}_key_idx`);
      });
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
    async dropPipelineTables({ staging, target }) {
      await knex.schema.dropTableIfExists(target);
      await knex.schema.dropTableIfExists(staging);
    },
  };
}
