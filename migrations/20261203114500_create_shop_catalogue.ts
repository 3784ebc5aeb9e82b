import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

const TABLES = { staging: 'stg_shop_catalogue', target: 'shop_catalogue' };

/** The shop catalogue pipeline's staging and target tables. Append-only: never edit, add a migration. */
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({
    ...TABLES,
    columns: {
      description: column.text(),
      unit_price: column.decimal(10, 3),
    },
  });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables(TABLES);
}
