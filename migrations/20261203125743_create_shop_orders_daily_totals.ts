import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * Written by `idem migrate --make` at 2026-12-03T12:57:43.230Z from the difference between the
 * pipelines' columns and the database:
 *
 *   table                     column   pipeline declares             needs  database has
 *   shop_orders_daily_totals  (table)  derived table of shop-orders         no such table
 *
 * Review it, then `idem migrate`. Append-only: once applied anywhere, never edit it; make another.
 */
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createDerivedTable({
    table: 'shop_orders_daily_totals',
    columns: {
      business_date: column.date(),
      country: column.text({ maxLength: 100 }),
      orders: column.integer(),
      total: column.decimal(16, 3),
    },
  });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropTables(['shop_orders_daily_totals']);
}
