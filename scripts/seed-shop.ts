// `npm run seed-shop [-- DATABASE_URL]`: the example `shop` database that the `shop-orders`
// pipeline reads through `sqlSource`: one `orders` row per invoice of the UCI "Online Retail"
// daily files in fixtures/online-retail/ (credit notes are returns, not orders), with the
// instant it was placed (the invoice's time, Europe/London) and the instant it shipped (a few
// hours to a day later, the same for the same order on every seed). SQLite at var/shop.sqlite3
// by default; any database URL idem speaks (postgres://…, mariadb://…) otherwise. Seeding again
// replaces the table.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Big } from 'big.js';
import { parse } from 'csv-parse/sync';
import { DateTime } from 'luxon';
import { column, type ColumnSpec } from '../src/column/column-type.ts';
import { redactUrl } from '../src/config/redact-url.ts';
import { openDatabase } from '../src/db/open-database.ts';

/** The shop's columns, in the types idem gives them on each dialect (an instant as idem stores one). */
export const SHOP_ORDER_COLUMNS = {
  customer_id: column.text({ nullable: true }),
  country: column.text(),
  ordered_at: column.instant(),
  shipped_at: column.instant(),
  line_count: column.integer(),
  total: column.decimal(14, 3),
} as const satisfies Readonly<Record<string, ColumnSpec>>;

/** One `orders` row, values canonical (instants ISO 8601 UTC, the total as decimal text). */
export interface ShopOrder {
  readonly order_id: string;
  readonly customer_id: string | null;
  readonly country: string;
  readonly ordered_at: string;
  readonly shipped_at: string;
  readonly line_count: number;
  readonly total: string;
}

/** The repository: this file runs from scripts/ (tests) or dist/scripts/ (the build). */
const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPOSITORY = path.basename(path.dirname(HERE)) === 'dist' ? path.resolve(HERE, '..', '..') : path.resolve(HERE, '..');
const TIME_ZONE = 'Europe/London';

/**
 * The orders of the fixture files: lines grouped by invoice number, credit notes (`C…`) left out.
 * An order ships 1 to 30 hours after it was placed (the invoice number modulo 30, plus one), so
 * a business date holds orders placed that day and the day before.
 */
export function shopOrders(fixtures = path.join(REPOSITORY, 'fixtures', 'online-retail')): ShopOrder[] {
  const orders = new Map<string, { customer: string; country: string; placed: DateTime; lines: number; total: Big }>();
  for (const file of readdirSync(fixtures).filter((name) => name.endsWith('.csv')).sort()) {
    const rows = parse(readFileSync(path.join(fixtures, file)), { columns: true, skip_empty_lines: true, trim: true }) as Record<string, string>[];
    for (const row of rows) {
      if (row.InvoiceNo!.startsWith('C')) continue;
      const placed = DateTime.fromFormat(row.InvoiceDate!, 'yyyy-MM-dd HH:mm:ss', { zone: TIME_ZONE });
      const amount = new Big(row.UnitPrice!).times(row.Quantity!);
      const order = orders.get(row.InvoiceNo!);
      if (order) {
        order.lines += 1;
        order.total = order.total.plus(amount);
      } else {
        orders.set(row.InvoiceNo!, { customer: row.CustomerID!.replace(/\.0+$/, ''), country: row.Country!, placed, lines: 1, total: amount });
      }
    }
  }
  return [...orders].map(([id, order]) => ({
    order_id: id,
    customer_id: order.customer === '' ? null : order.customer,
    country: order.country,
    ordered_at: order.placed.toUTC().toISO()!,
    shipped_at: order.placed.plus({ hours: (Number(id.replace(/\D/g, '')) % 30) + 1 }).toUTC().toISO()!,
    line_count: order.lines,
    total: order.total.toFixed(3),
  }));
}

/**
 * Creates (or replaces) the `orders` table of the database at `url` and fills it with
 * {@link shopOrders}. Returns how many orders it wrote.
 */
export async function seedShop(url: string, projectDir: string, orders: readonly ShopOrder[] = shopOrders()): Promise<number> {
  const db = await openDatabase({ databaseUrl: url, projectDir });
  try {
    await db.knex.schema.dropTableIfExists('orders');
    await db.knex.schema.createTable('orders', (table) => {
      table.string('order_id', 32).primary();
      for (const [name, spec] of Object.entries(SHOP_ORDER_COLUMNS)) db.adapter.addColumn(table, name, spec);
      table.index(['shipped_at']);
    });
    const driverRows = orders.map((order) => {
      const row: Record<string, unknown> = { order_id: order.order_id };
      for (const [name, spec] of Object.entries(SHOP_ORDER_COLUMNS)) {
        const value = order[name as keyof typeof SHOP_ORDER_COLUMNS];
        row[name] = value === null ? null : db.adapter.toDriverValue(spec, value);
      }
      return row;
    });
    for (let i = 0; i < driverRows.length; i += 200) await db.knex('orders').insert(driverRows.slice(i, i + 200));
    return orders.length;
  } finally {
    await db.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const url = process.argv[2] ?? `sqlite:${path.join(REPOSITORY, 'var', 'shop.sqlite3')}`;
  const count = await seedShop(url, REPOSITORY);
  process.stdout.write(`seeded ${count} orders into ${redactUrl(url)}\n`);
}
