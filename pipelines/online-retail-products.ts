import { z } from 'zod';
import { column, definePipeline, httpJsonSource, type PipelineRecord, type SourceRow } from 'idem';

/** One product of the shop's catalogue API, validated. Prices are decimal strings in GBP, never floats. */
const Product = z.object({
  stock_code: z.string().min(1, 'must not be empty'),
  // Kept exactly as served: several descriptions end in a space, and that is part of the value.
  description: z.string(),
  // At most 3 decimals: the data set's finest price is 0.001 (the column is decimal(10, 3)).
  unit_price: z.string().regex(/^\d{1,7}(\.\d{1,3})?$/, 'expected a decimal number ≥ 0 with at most 3 decimals'),
});
type Product = z.output<typeof Product>;

async function* products(rows: AsyncIterable<SourceRow<Product>>): AsyncGenerator<PipelineRecord> {
  for await (const { line, value } of rows) {
    yield { sourceReference: value.stock_code, line, values: { description: value.description, unit_price: value.unit_price } };
  }
}

/**
 * The second example pipeline: the shop's product catalogue from its JSON API (the project's
 * sandbox in development, demo and tests: `GET /products`, cursor paging) into one `products`
 * row per stock code. The run key is a business date, the catalogue as of that day's run; the
 * API serves the current catalogue, so a rerun with `--force` updates what changed since.
 * A bad product is quarantined and the rest load: products are independent of each other, and
 * the bad one keeps its last good row until the API serves it fixed.
 * The base URL is deployment configuration: `IDEM_SOURCES='{"online-retail-products":{"url":"http://127.0.0.1:4010"}}'`.
 */
export const pipeline = definePipeline({
  name: 'online-retail-products',
  description: 'Product catalogue API (GET /products, cursor paging) → one row per stock code',
  sourceSystem: 'online-retail',
  timeZone: 'Europe/London',
  source: httpJsonSource({
    path: '/products?style=cursor',
    paging: { style: 'cursor', cursorField: 'next_cursor', cursorParam: 'cursor', limitParam: 'limit', limit: 500 },
    items: (body) => (body as { data: unknown[] }).data,
    row: Product,
    invalidRows: 'quarantine',
  }),
  toRecords: products,
  tables: { staging: 'stg_products', target: 'products' },
  columns: {
    description: column.text(),
    unit_price: column.decimal(10, 3),
  },
  duplicateKeys: 'error',
});
