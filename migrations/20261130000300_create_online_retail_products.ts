import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

const TABLES = { staging: 'stg_products', target: 'products' };

/** The product catalogue pipeline's staging and target tables. Append-only: never edit, add a migration. */
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({
    ...TABLES,
    columns: {
      description: column.text(),
      // The data set's finest price is 0.001 and its largest 11,062.06: 3 decimals, 7 digits before the point.
      unit_price: column.decimal(10, 3),
    },
  });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables(TABLES);
}
