import { column, csvSource, definePipeline } from 'idem';

/**
 * The third example pipeline: the shop's catalogue as a daily full export, one CSV file per day
 * (`fixtures/shop-catalogue/`, derived from the online-retail fixtures by
 * `scripts/derive-shop-catalogue.ts`), into one `shop_catalogue` row per stock code, each posted
 * to the accounting API's catalogue items. Each file holds every product on sale that day
 * (`snapshot: 'full'`), so a product missing from a day's file left the catalogue: it is marked
 * deleted (`deleted_at`, `deleted_in_run_key`; the row stays) and its item deleted at the API,
 * once. A file that would mark more than a tenth of the catalogue deleted (a cut file, an export
 * that went wrong) stops before writing anything, exit 3, until `--allow-deletes N` confirms it.
 */
export const pipeline = definePipeline({
  name: 'shop-catalogue',
  description: 'Daily full export of the catalogue (CSV) → one row per stock code; products that leave it are deleted',
  sourceSystem: 'shop',
  timeZone: 'Europe/London',
  key: 'stock_code',
  source: csvSource({ directory: 'fixtures/shop-catalogue', fileForDate: (date) => `${date}.csv`, snapshot: 'full' }),
  tables: { staging: 'stg_shop_catalogue', target: 'shop_catalogue' },
  columns: {
    // Kept exactly as exported: several descriptions end in a space.
    description: column.text(),
    unit_price: column.decimal(10, 3),
  },
  destinations: [{
    // The accounting API (the project's sandbox) keeps one item per stock code: POST creates it,
    // PUT replaces it, DELETE removes it.
    name: 'sandbox-accounting',
    strategy: 'idempotency-key',
    request: ({ remoteReference, sourceReference, version, values }) => ({
      method: remoteReference === undefined ? 'POST' : 'PUT',
      path: remoteReference === undefined ? '/items' : `/items/${encodeURIComponent(remoteReference)}`,
      body: { reference: sourceReference, type: 'item', version, description: values.description, unit_price: values.unit_price },
    }),
    remoteReference: (body) => (body as { id: string }).id,
    delete: ({ remoteReference }) => ({ method: 'DELETE', path: `/items/${encodeURIComponent(remoteReference!)}`, body: undefined }),
    lookup: {
      path: (row) => `/items?reference=${encodeURIComponent(row.sourceReference)}`,
      find: (body, row) => {
        const current = (body as { data: { id: string; version?: string }[] }).data.at(-1);
        return current?.version === row.version ? current.id : undefined;
      },
      exists: (body) => (body as { data: unknown[] }).data.length > 0,
    },
    notApplied: ({ status }) => status === 429 || status === 503,
  }],
});
