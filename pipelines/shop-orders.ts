import { column, definePipeline, sqlSource } from 'idem';

/**
 * The second example pipeline: the orders the shop's own database says shipped on the business
 * date (Europe/London), read with one query in one snapshot (`sqlSource`; the `shop` database of
 * `npm run seed-shop`, found by `IDEM_SOURCES='{"shop":{"url":"sqlite:var/shop.sqlite3"}}'`),
 * stored one row per order, its daily totals per country rebuilt for the date in the same
 * transaction (`derived`), and posted to the accounting API (the project's sandbox) as an invoice
 * each.
 */
export const pipeline = definePipeline({
  name: 'shop-orders',
  description: 'the shop database: orders shipped on the business date → one row per order, invoiced',
  sourceSystem: 'shop',
  timeZone: 'Europe/London',
  source: sqlSource({
    database: 'shop',
    // [start, end): the business date's first instant in Europe/London, and the next date's
    // (23 or 25 hours apart on the days the clocks change). knex binds both.
    query: (db, { start, end }) =>
      db('orders')
        .select('order_id', 'customer_id', 'country', 'ordered_at', 'shipped_at', 'line_count', 'total')
        .where('shipped_at', '>=', start)
        .andWhere('shipped_at', '<', end)
        .orderBy('order_id'),
  }),
  key: 'order_id',
  tables: { staging: 'stg_shop_orders', target: 'shop_orders' },
  columns: {
    customer_id: column.id({ nullable: true }),
    country: column.text(),
    ordered_at: column.instant(),
    shipped_at: column.instant(),
    line_count: column.integer(),
    total: column.decimal(14, 3),
  },
  // One row per business date and country: deleted and recomputed from shop_orders for the run's
  // date in the upsert's transaction, so a rerun or a corrected order gives the same totals.
  derived: [{
    table: 'shop_orders_daily_totals',
    columns: { business_date: column.date(), country: column.text({ maxLength: 100 }), orders: column.integer(), total: column.decimal(16, 3) },
    query: (orders, { start, end }, raw) => orders
      .where('shipped_at', '>=', start).andWhere('shipped_at', '<', end)
      .groupBy('country')
      .select('country', raw('count(*) as orders'), raw('round(sum(total), 3) as total')),
  }],
  destinations: [{
    // The accounting API of online-retail-invoices: an order that shipped is invoiced. Its
    // reference says which pipeline wrote it, so the two examples never share a record.
    name: 'sandbox-accounting',
    strategy: 'idempotency-key',
    request: ({ remoteReference, sourceReference, version, values }) => ({
      method: remoteReference === undefined ? 'POST' : 'PUT',
      path: remoteReference === undefined ? '/invoices' : `/invoices/${encodeURIComponent(remoteReference)}`,
      body: {
        reference: `order-${sourceReference}`, type: 'invoice', version, customer_id: values.customer_id, country: values.country,
        issued_at: values.shipped_at, currency: 'GBP', total: values.total, line_count: values.line_count,
      },
    }),
    remoteReference: (body) => (body as { id: string }).id,
    notApplied: ({ status }) => status === 429 || status === 503,
  }],
});
