import type { Knex } from 'knex';
import { column } from '../pipeline/column-type.ts';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';
import type { MigrationContext } from './migration-context.ts';

/** Length of business-key columns: long enough for any reference, short enough for every unique index. */
const KEY_LENGTH = 200;

/** Builds the {@link MigrationContext} for one database. */
export function createMigrationContext(knex: Knex, adapter: DialectAdapter): MigrationContext {
  const addColumn = adapter.addColumn.bind(adapter);
  return {
    addColumn,
    async createPipelineTables({ staging, target, columns }) {
      await knex.schema.createTable(staging, (t) => {
        t.bigInteger('seq').notNullable().primary();
        t.string('run_key', KEY_LENGTH).notNullable();
        t.string('source_system', KEY_LENGTH).notNullable();
        t.string('source_reference', KEY_LENGTH).notNullable();
        t.integer('source_line').nullable();
        t.string('row_hash', 64).notNullable();
        for (const [name, spec] of Object.entries(columns)) addColumn(t, name, spec);
        t.index(['source_system', 'source_reference'], `${staging}_key_idx`);
      });
      await knex.schema.createTable(target, (t) => {
        t.bigIncrements('id').primary();
        t.string('source_system', KEY_LENGTH).notNullable();
        t.string('source_reference', KEY_LENGTH).notNullable();
        for (const [name, spec] of Object.entries(columns)) addColumn(t, name, spec);
        t.string('row_hash', 64).notNullable();
        t.string('first_run_key', KEY_LENGTH).notNullable();
        t.string('last_changed_run_key', KEY_LENGTH).notNullable();
        addColumn(t, 'created_at', column.instant());
        addColumn(t, 'updated_at', column.instant());
        t.unique(['source_system', 'source_reference'], { indexName: `${target}_key_uq` });
      });
    },
    async dropPipelineTables({ staging, target }) {
      await knex.schema.dropTableIfExists(target);
      await knex.schema.dropTableIfExists(staging);
    },
  };
}
