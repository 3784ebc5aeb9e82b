import type { Knex } from 'knex';
import type { MigrationContext } from 'idem';

/**
 * The index every rebuild of `online_retail_daily_totals` reads the target by: each business
 * date's invoices, selected by `invoiced_at` (the derived table's `scopeFrom`). What
 * `idem migrate --make` now writes beside a new derived table; this one came before it.
 */
export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createScopeIndex({ table: 'online_retail_invoices', column: 'invoiced_at' });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropScopeIndex({ table: 'online_retail_invoices', column: 'invoiced_at' });
}
