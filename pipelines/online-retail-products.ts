import { z } from 'zod';
import { column, definePipeline, httpJsonSource } from 'idem';

/** One product of the shop's catalogue API, validated. Prices are decimal strings in GBP, never floats. */
const Product = z.object({
  stock_code: z.string().min(1, 'must not be empty'),
  // Kept exactly as served: several descriptions end in a space, and that is part of the value.
  description: z.string(),
  // At most 3 decimals: the data set's finest price is 0.001 (the column is decimal(10, 3)).
  unit_price: z.string().regex(/^\d{1,7}(\.\d{1,3})?$/, 'expected a decimal number ≥ 0 with at most 3 decimals'),
  // When the product last changed at the API: what the incremental read goes by.
  updated_at: z.iso.datetime({ offset: true }),
  // A product withdrawn from the catalogue stays in the API as `archived`: a tombstone.
  status: z.string().optional(),
});

/**
 * The second example pipeline: the shop's product catalogue from its JSON API (the project's
 * sandbox in development, demo and tests: `GET /products`, cursor paging) into one `products`
 * row per stock code. The source is incremental: each run asks only for the products changed
 * since the last completed run (`updated_since`, in `updated_at` order), so a change at the API
 * is picked up by the next plain run, even under the same business date; `--force` reads the
 * whole catalogue.
 * A bad product is quarantined and the rest load: products are independent of each other, and
 * the bad one keeps its last good row until the API serves it fixed (a fix is a change, so the
 * next run reads it). An incremental read cannot see a product that is gone, but the API keeps a
 * withdrawn product as `status: 'archived'` (a change, so the next run reads it): a tombstone,
 * and its row is marked deleted (`deleted_at`); served again as active, it is live again.
 * The base URL is deployment configuration: `IDEM_SOURCES='{"online-retail-products":{"url":"http://127.0.0.1:4010"}}'`.
 */
export const pipeline = definePipeline({
  name: 'online-retail-products',
  description: 'Product catalogue API (GET /products, cursor paging, changes since the last run) → one row per stock code',
  sourceSystem: 'online-retail',
  timeZone: 'Europe/London',
  source: httpJsonSource({
    path: '/products?style=cursor&sort=updated_at',
    paging: { style: 'cursor', cursorField: 'next_cursor', cursorParam: 'cursor', limitParam: 'limit', limit: 500 },
    items: (body) => (body as { data: unknown[] }).data,
    row: Product,
    invalidRows: 'quarantine',
    incremental: { param: 'updated_since', cursor: (product) => product.updated_at, type: 'instant' },
    tombstone: (product) => product.status === 'archived',
  }),
  key: 'stock_code',
  tables: { staging: 'stg_products', target: 'products' },
  columns: {
    description: column.text(),
    unit_price: column.decimal(10, 3),
  },
  duplicateKeys: 'error',
});
