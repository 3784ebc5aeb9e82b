import { Big } from 'big.js';
import { DateTime } from 'luxon';
import type { Database } from '../../src/db/database.ts';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { readInvoices } from './read-target.ts';

/** One `online_retail_daily_totals` row with canonical values (a total with exactly 3 decimals). */
export interface DailyTotal {
  business_date: string;
  country: string;
  invoices: number;
  credit_notes: number;
  total: string;
}

const derived = pipeline.derived[0]!;
const order = (a: DailyTotal, b: DailyTotal) => a.business_date.localeCompare(b.business_date) || a.country.localeCompare(b.country);

/** Every row of `online_retail_daily_totals`, by date and country (SQLite's total, a rounded double, written with 3 decimals). */
export async function readDailyTotals(db: Database): Promise<DailyTotal[]> {
  const rows = (await db.knex(derived.table).select('*')) as Record<string, unknown>[];
  return rows
    .map((row) => {
      const value = (name: string) => db.adapter.fromDriverValue(derived.columns[name]!, row[name]);
      return { business_date: value('business_date') as string, country: value('country') as string, invoices: Number(value('invoices')), credit_notes: Number(value('credit_notes')), total: new Big(value('total') as string).toFixed(3) };
    })
    .sort(order);
}

/**
 * The daily totals recomputed in JavaScript from the target's rows (big.js sums, luxon dates in
 * the pipeline's zone), for `dates`: what the derived table must hold for them.
 */
export async function recomputeDailyTotals(db: Database, dates: readonly string[]): Promise<DailyTotal[]> {
  const totals = new Map<string, DailyTotal & { sum: Big }>();
  for (const invoice of await readInvoices(db)) {
    const date = DateTime.fromISO(invoice.invoiced_at, { zone: pipeline.timeZone }).toISODate()!;
    if (!dates.includes(date)) continue;
    const key = `${date} ${invoice.country}`;
    const total = totals.get(key) ?? { business_date: date, country: invoice.country, invoices: 0, credit_notes: 0, total: '', sum: new Big(0) };
    if (invoice.document_type === 'invoice') total.invoices += 1;
    else total.credit_notes += 1;
    total.sum = total.sum.plus(invoice.total);
    totals.set(key, total);
  }
  return [...totals.values()].map(({ sum, ...total }) => ({ ...total, total: sum.toFixed(3) })).sort(order);
}
