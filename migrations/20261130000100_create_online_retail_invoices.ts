import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

const TABLES = { staging: 'stg_online_retail_invoices', target: 'online_retail_invoices' };

/** The example pipeline's staging and target tables. Append-only: never edit, add a migration. */
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({
    ...TABLES,
    columns: {
      document_type: column.text(),
      customer_id: column.text({ nullable: true }),
      country: column.text(),
      invoiced_at: column.instant(),
      line_count: column.integer(),
      total: column.decimal(14, 3),
      lines: column.json(),
    },
  });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables(TABLES);
}
