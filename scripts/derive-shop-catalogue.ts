// Derives fixtures/shop-catalogue/YYYY-MM-DD.csv, the shop's catalogue as a daily full export
// (the example pipeline shop-catalogue reads it with snapshot: 'full'), from the online-retail
// fixtures of 2010-12-01, 2010-12-02 and 2010-12-03. Run by hand when the fixture must be rebuilt:
//
//   npm exec -- node scripts/derive-shop-catalogue.ts
//
// The catalogue of a day is every product (StockCode, compared exactly) sold on or before that
// day, with the Description and UnitPrice of its latest line up to that day, except a product
// whose latest line up to that day is a credit note (InvoiceNo starting with C): it was returned
// and is withdrawn from the catalogue; a later sale brings it back. Lines with UnitPrice <= 0 are
// skipped. Values are copied as written. Output: header stock_code,description,unit_price, one
// product per line sorted by stock_code (UTF-16 code-unit order), every field quoted.
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';
import { csvLine } from '../src/dialect/csv-line.ts';

const DAYS = ['2010-12-01', '2010-12-02', '2010-12-03'];

const scriptDir = path.dirname(fileURLToPath(import.meta.url));
// The project directory, whether this runs from scripts/ (the source) or dist/scripts/ (the build).
const projectDir = path.resolve(scriptDir, path.basename(path.dirname(scriptDir)) === 'dist' ? '../..' : '..');
const inDir = path.join(projectDir, 'fixtures', 'online-retail');
const outDir = path.join(projectDir, 'fixtures', 'shop-catalogue');

interface Latest {
  description: string;
  unitPrice: string;
  returned: boolean;
}

const latest = new Map<string, Latest>();
mkdirSync(outDir, { recursive: true });
for (const day of DAYS) {
  const parser = createReadStream(path.join(inDir, `${day}.csv`)).pipe(parse({ columns: true }));
  for await (const line of parser as AsyncIterable<Record<string, string>>) {
    if (!(Number(line.UnitPrice) > 0)) continue;
    latest.set(line.StockCode!, { description: line.Description!, unitPrice: line.UnitPrice!, returned: line.InvoiceNo!.startsWith('C') });
  }
  const codes = [...latest.keys()].filter((code) => !latest.get(code)!.returned).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = codes.map((code) => csvLine([code, latest.get(code)!.description, latest.get(code)!.unitPrice]));
  writeFileSync(path.join(outDir, `${day}.csv`), `stock_code,description,unit_price\n${lines.join('')}`);
  console.log(`${day}: ${codes.length} products`);
}
