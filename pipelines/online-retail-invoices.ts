import { Big } from 'big.js';
import { z } from 'zod';
import { canonicalField, column, csvSource, definePipeline, groupRows, type PipelineRecord, type SourceRow } from 'idem';

/** The shop's local time zone: the files' times and the business date are Europe/London. */
const TIME_ZONE = 'Europe/London';

/** One line of the UCI "Online Retail" daily files; each field is trimmed, numbers canonical. */
const InvoiceLine = z.object({
  InvoiceNo: z.string().trim().regex(/^[A-Z]?\d+$/, 'expected an invoice number such as 536365 or C536379'),
  StockCode: z.string().trim().min(1, 'must not be empty'),
  Description: z.string().trim(),
  Quantity: canonicalField.integer(),
  // Every line's time is checked, not only the invoice's earliest, which becomes `invoiced_at`.
  InvoiceDate: canonicalField.wallTime('yyyy-MM-dd HH:mm:ss', TIME_ZONE),
  UnitPrice: canonicalField.decimal(),
  CustomerID: z.string().trim().regex(/^(\d+(\.0+)?)?$/, 'expected a whole customer number or nothing'), // 17850.0; empty for guests
  Country: z.string().trim().min(1, 'must not be empty'),
});

/** An invoice's lines as the `lines` column holds them. */
const Lines = z.array(z.object({ stock_code: z.string(), description: z.string(), quantity: z.number(), unit_price: z.string(), amount: canonicalField.decimal(3) }));

/** One record per invoice number, from all of its lines wherever they are in the file, in file order. */
async function* invoices(rows: AsyncIterable<SourceRow<z.output<typeof InvoiceLine>>>): AsyncGenerator<PipelineRecord> {
  for await (const { key, line, rows: items } of groupRows(rows, { key: (item) => item.InvoiceNo })) {
    const lines = items.map(({ StockCode, Description, Quantity, UnitPrice }) => (
      { stock_code: StockCode, description: Description, quantity: Quantity, unit_price: UnitPrice, amount: new Big(UnitPrice).times(Quantity) }));
    yield { sourceReference: key, line, values: {
      document_type: key.startsWith('C') ? 'credit_note' : 'invoice',
      customer_id: items[0]!.CustomerID,
      country: items[0]!.Country,
      invoiced_at: items.reduce((min, item) => (item.InvoiceDate < min ? item.InvoiceDate : min), items[0]!.InvoiceDate),
      line_count: lines.length,
      total: lines.reduce((sum, item) => sum.plus(item.amount), new Big(0)),
      lines,
    } };
  }
}

/**
 * The example pipeline: a day of the UCI "Online Retail" shop (one CSV per business date) into
 * one `online_retail_invoices` row per invoice number (a number starting with `C` is a credit
 * note), posted to the accounting API. A broken line fails the run (after quarantining every bad
 * line of the file): an invoice with a line missing would carry a wrong total.
 */
export const pipeline = definePipeline({
  name: 'online-retail-invoices',
  description: 'UCI Online Retail daily CSV → one row per invoice (credit notes included)',
  sourceSystem: 'online-retail',
  timeZone: TIME_ZONE,
  source: csvSource({ directory: 'fixtures/online-retail', fileForDate: (date) => `${date}.csv`, row: InvoiceLine, invalidRows: 'fail', missing: 'skip' }),
  toRecords: invoices,
  tables: { staging: 'stg_online_retail_invoices', target: 'online_retail_invoices' },
  columns: {
    document_type: column.text(), customer_id: column.id({ nullable: true }), country: column.text(), invoiced_at: column.instant(),
    line_count: column.integer(), total: column.decimal(14, 3), lines: column.json({ shape: Lines }),
  },
  duplicateKeys: 'error',
  // One row per business date and country, rebuilt from the invoices of the date in the upsert's
  // transaction. A --file run rebuilds the dates its invoices fall on (scopeFrom).
  derived: [{
    table: 'online_retail_daily_totals',
    columns: { business_date: column.date(), country: column.text(), invoices: column.integer(), credit_notes: column.integer(), total: column.decimal(16, 3) },
    scopeFrom: 'invoiced_at',
    query: (invoices, { start, end }, raw) => invoices
      .where('invoiced_at', '>=', start).andWhere('invoiced_at', '<', end)
      .groupBy('country')
      .select(
        'country',
        raw('sum(case when document_type = ? then 1 else 0 end) as invoices', ['invoice']),
        raw('sum(case when document_type = ? then 1 else 0 end) as credit_notes', ['credit_note']),
        // SQLite sums its decimal text as doubles: rounded to the column's scale, the sum is exact.
        raw('round(sum(total), 3) as total'),
      ),
  }],
  destinations: [{
    // The accounting API (the project's sandbox) keeps one record per invoice: POST creates it,
    // PUT replaces it; the body's version tells a look-up whether the API holds this version.
    name: 'sandbox-accounting',
    strategy: 'idempotency-key',
    request: ({ remoteReference, sourceReference, version, values }) => ({
      method: remoteReference === undefined ? 'POST' : 'PUT',
      path: remoteReference === undefined ? '/invoices' : `/invoices/${encodeURIComponent(remoteReference)}`,
      body: {
        reference: sourceReference, type: values.document_type, version, customer_id: values.customer_id, country: values.country,
        issued_at: values.invoiced_at, currency: 'GBP', total: values.total, lines: values.lines,
      },
    }),
    remoteReference: (body) => (body as { id: string }).id,
    // `{ data: [...] }`: the records of the reference, oldest first; only the newest one counts.
    lookup: {
      path: (row) => `/invoices?reference=${encodeURIComponent(row.sourceReference)}`,
      find: (body, row) => {
        const current = (body as { data: { id: string; version?: string }[] }).data.at(-1);
        return current?.version === row.version ? current.id : undefined;
      },
      exists: (body) => (body as { data: unknown[] }).data.length > 0,
      // One record per invoice: two with its reference are a duplicate (a create applied late).
      references: (body) => (body as { data: { id: string }[] }).data.map((record) => record.id),
    },
    // The API documents its 429 (rate limit) and 503 answers as "nothing was processed".
    notApplied: ({ status }) => status === 429 || status === 503,
    http: { concurrency: 16, headersTimeoutMs: 10_000, bodyTimeoutMs: 10_000 },
  }],
});
