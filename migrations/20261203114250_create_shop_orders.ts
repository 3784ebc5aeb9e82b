import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * Written by `idem migrate --make` at 2026-12-03T11:42:50.733Z from the difference between the
 * pipelines' columns and the database:
 *
 *   table            column   pipeline declares             needs  database has
 *   stg_shop_orders  (table)  staging table of shop-orders         no such table
 *   shop_orders      (table)  target table of shop-orders          no such table
 *
 * Review it, then `idem migrate`. Append-only: once applied anywhere, never edit it; make another.
 */
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({
    staging: 'stg_shop_orders', target: 'shop_orders',
    columns: {
      customer_id: column.text({ nullable: true }),
      country: column.text(),
      ordered_at: column.instant(),
      shipped_at: column.instant(),
      line_count: column.integer(),
      total: column.decimal(14, 3),
    },
  });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables({ staging: 'stg_shop_orders', target: 'shop_orders' });
}
