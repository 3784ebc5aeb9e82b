// Derives fixtures/online-retail/products.json, the catalogue the sandbox API serves by default
// (`GET /products`), from the full UCI "Online Retail" data set split by day. Run once, by hand,
// when the fixture must be rebuilt; nothing reads the data set at run time:
//
//   npm exec -- node scripts/derive-products-fixture.ts [BY_DAY_DIR]   (the pinned Node strips its types)
//
// BY_DAY_DIR defaults to ../shared/data/online-retail/by-day (next to the project directory).
//
// One product per distinct StockCode (compared exactly: `85123A` and `85123a` are two products,
// as in the data), with the Description and UnitPrice of its latest sale by InvoiceDate. Ties on
// InvoiceDate go to the later line (files in date order, lines in file order). Credit notes
// (InvoiceNo starting with C) and lines with UnitPrice <= 0 are not sales and are skipped;
// adjustment codes (POST, M, BANK CHARGES, …) with a positive price are kept as products.
// Values are copied as written: descriptions keep their trailing spaces, prices their decimals.
// `updated_at` is that sale's InvoiceDate (Europe/London) as a UTC instant: when the catalogue
// entry last changed, what an incremental read (`updated_since`) goes by.
// Output: a JSON array sorted by stock_code (UTF-16 code-unit order), one product per line.
import { createReadStream, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';
import { DateTime } from 'luxon';

const HEADER = 'InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country';

const scriptDir = path.dirname(fileURLToPath(import.meta.url));
// The project directory, whether this runs from scripts/ (the source, through Node's type stripping) or dist/scripts/ (the build).
const projectDir = path.resolve(scriptDir, path.basename(path.dirname(scriptDir)) === 'dist' ? '../..' : '..');
const byDayDir = path.resolve(process.argv[2] ?? path.join(projectDir, '..', 'shared', 'data', 'online-retail', 'by-day'));
const outFile = path.join(projectDir, 'fixtures', 'online-retail', 'products.json');

interface Latest {
  invoiceDate: string;
  description: string;
  unitPrice: string;
}

const latest = new Map<string, Latest>();
let lines = 0;
const files = readdirSync(byDayDir).filter((name) => /^\d{4}-\d{2}-\d{2}\.csv$/.test(name)).sort();
for (const name of files) {
  const parser = createReadStream(path.join(byDayDir, name)).pipe(parse({ bom: true, skip_empty_lines: true }));
  let header = true;
  for await (const record of parser as AsyncIterable<string[]>) {
    if (header) {
      header = false;
      if (record.join(',') !== HEADER) throw new Error(`${name}: unexpected header ${record.join(',')}`);
      continue;
    }
    lines += 1;
    const [invoiceNo, stockCode, description, , invoiceDate, unitPrice] = record as [string, string, string, string, string, string];
    if (invoiceNo.startsWith('C') || !(Number(unitPrice) > 0)) continue;
    const seen = latest.get(stockCode);
    // `YYYY-MM-DD HH:MM:SS` sorts as text; `>=` lets the later line win a tie.
    if (seen === undefined || invoiceDate >= seen.invoiceDate) latest.set(stockCode, { invoiceDate, description, unitPrice });
  }
}

const codes = [...latest.keys()].sort();
const products = codes.map((code) => {
  const { description, unitPrice, invoiceDate } = latest.get(code)!;
  const updatedAt = DateTime.fromSQL(invoiceDate, { zone: 'Europe/London' }).toUTC().toISO();
  if (updatedAt === null) throw new Error(`${code}: ${invoiceDate} is not a London time`);
  return JSON.stringify({ stock_code: code, description, unit_price: unitPrice, updated_at: updatedAt });
});
writeFileSync(outFile, `[\n${products.join(',\n')}\n]\n`);
process.stdout.write(`${files.length} files, ${lines} lines → ${products.length} products in ${path.relative(projectDir, outFile)}\n`);
