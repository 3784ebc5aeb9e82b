import type { Database } from '../../src/db/database.ts';
import { column } from '../../src/column/column-type.ts';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';

/** A target row of the example pipeline with canonical values (the same on every dialect). */
export interface InvoiceRow {
  source_reference: string;
  document_type: string;
  customer_id: string | null;
  country: string;
  invoiced_at: string;
  line_count: number;
  total: string;
  lines: { stock_code: string; description: string; quantity: number; unit_price: string; amount: string }[];
  row_hash: string;
  first_run_key: string;
  last_changed_run_key: string;
  updated_at: string;
}

/**
 * Every `online_retail_invoices` row, ordered by invoice number, without `id` and `created_at`.
 * `stamps: false` also leaves out `updated_at`, to compare two databases row for row.
 */
export async function readInvoices(db: Database, options: { stamps?: boolean } = {}): Promise<InvoiceRow[]> {
  const rows = await db.knex(pipeline.tables.target).select('*').orderBy('source_reference');
  return rows.map(({ id: _id, created_at: _created, updated_at, ...row }: Record<string, unknown>) => {
    const out: Record<string, unknown> = { ...row };
    for (const [name, spec] of Object.entries(pipeline.columns)) out[name] = db.adapter.fromDriverValue(spec, row[name]);
    if (options.stamps !== false) out.updated_at = db.adapter.fromDriverValue(column.instant(), updated_at);
    return out as unknown as InvoiceRow;
  });
}
