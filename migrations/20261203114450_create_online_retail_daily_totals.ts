import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * Written by `idem migrate --make` at 2026-12-03T11:44:50.966Z from the difference between the
 * pipelines' columns and the database:
 *
 *   table                       column   pipeline declares                        needs  database has
 *   online_retail_daily_totals  (table)  derived table of online-retail-invoices         no such table
 *
 * Review it, then `idem migrate`. Append-only: once applied anywhere, never edit it; make another.
 */
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createDerivedTable({
    table: 'online_retail_daily_totals',
    columns: {
      business_date: column.date(),
      country: column.text(),
      invoices: column.integer(),
      credit_notes: column.integer(),
      total: column.decimal(16, 3),
    },
  });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropTables(['online_retail_daily_totals']);
}
