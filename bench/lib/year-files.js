// The benchmark inputs, all derived from the 305 daily files of the UCI Online Retail data set.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The header every daily file starts with (the pipeline's `header`). */
export const HEADER = 'InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country';

/** The sorted `YYYY-MM-DD.csv` files of `dir`. @throws Error when there are none. */
export function dailyFiles(dir) {
  const files = readdirSync(dir).filter((f) => /^\d{4}-\d{2}-\d{2}\.csv$/.test(f)).sort();
  if (files.length === 0) throw new Error(`no YYYY-MM-DD.csv files in ${dir} (set BENCH_DATA_DIR)`);
  return files;
}

/** The data lines of one daily file (header and BOM dropped, checked), each ending in `\n`. */
function dataLines(file) {
  let text = readFileSync(file, 'utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const eol = text.indexOf('\n');
  const header = (eol < 0 ? text : text.slice(0, eol)).replace(/\r$/, '');
  if (header !== HEADER) throw new Error(`${file}: unexpected header ${JSON.stringify(header)}`);
  // The data lines hold no quoted newlines (the year import checks idem's extract count against this).
  return (eol < 0 ? '' : text.slice(eol + 1)).split('\n').filter((line) => line.trim() !== '').map((line) => `${line}\n`);
}

/** Lines, distinct invoice numbers (the first field) and bytes of a file's content. */
function describe(lines, content) {
  return { lines: lines.length, invoices: new Set(lines.map((l) => l.slice(0, l.indexOf(',')))).size, bytes: Buffer.byteLength(content) };
}

/**
 * Writes every daily file of `dir`, in date order, as one CSV with one header: the year file.
 * @returns {{ file: string, files: number, firstDate: string, lastDate: string, lines: number, invoices: number, bytes: number }}
 */
export function writeYearFile(dir, file) {
  const files = dailyFiles(dir);
  const lines = files.flatMap((f) => dataLines(path.join(dir, f)));
  const content = `${HEADER}\n${lines.join('')}`;
  writeFileSync(file, content);
  return { file, files: files.length, firstDate: files[0].slice(0, 10), lastDate: files.at(-1).slice(0, 10), ...describe(lines, content) };
}

/**
 * Writes the year twice: the second copy's invoice numbers get a `9` after the optional letter
 * (536365 → 9536365, C536379 → C9536379, A563185 → A9563185), so every invoice is distinct and still matches the
 * pipeline's `^[A-Z]?\d+$` rule (the originals have six digits).
 */
export function writeDoubledYearFile(yearFile, file) {
  const lines = readFileSync(yearFile, 'utf8').split('\n').slice(1).filter(Boolean).map((l) => `${l}\n`);
  const renumbered = lines.map((l) => l.replace(/^([A-Z]?)(\d)/, '$19$2'));
  const all = [...lines, ...renumbered];
  const content = `${HEADER}\n${all.join('')}`;
  writeFileSync(file, content);
  return { file, ...describe(all, content) };
}

/**
 * Writes the year with one invoice in every `every` (the 1st, the (every+1)th, … in order of first
 * appearance) changed: the quantity of its first line moves by one (+1, or −1 when +1 would give 0).
 * Deterministic; 25,900 invoices and `every` 100 change 259.
 * @returns {{ file: string, changedInvoices: number, lines: number, invoices: number, bytes: number }}
 */
export function writeChangedYearFile(yearFile, file, every = 100) {
  const lines = readFileSync(yearFile, 'utf8').split('\n').slice(1).filter(Boolean);
  const seen = new Set();
  let changed = 0;
  const out = lines.map((line) => {
    const invoice = line.slice(0, line.indexOf(','));
    if (seen.has(invoice)) return `${line}\n`;
    seen.add(invoice);
    if ((seen.size - 1) % every !== 0) return `${line}\n`;
    // Quantity is the 4th field; the 3rd (description) may be quoted and hold commas, so find
    // the quantity from the right: InvoiceDate, UnitPrice, CustomerID, Country never hold commas.
    const fields = line.split(',');
    const q = fields.length - 5;
    const quantity = Number(fields[q]);
    if (!Number.isInteger(quantity)) throw new Error(`invoice ${invoice}: quantity field ${JSON.stringify(fields[q])} is not an integer`);
    fields[q] = String(quantity + 1 === 0 ? quantity - 1 : quantity + 1);
    changed += 1;
    return `${fields.join(',')}\n`;
  });
  const content = `${HEADER}\n${out.join('')}`;
  writeFileSync(file, content);
  return { file, changedInvoices: changed, ...describe(out, content) };
}

/**
 * Writes `inFile`'s data lines in a seeded random order (Fisher–Yates, mulberry32), header first:
 * an export sorted by some other column, where one invoice's lines are anywhere in the file.
 * @returns {{ file: string, lines: number, invoices: number, bytes: number }}
 */
export function writeShuffledFile(inFile, file, seed = 16) {
  const lines = readFileSync(inFile, 'utf8').split('\n').slice(1).filter(Boolean).map((l) => `${l}\n`);
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  for (let i = lines.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [lines[i], lines[j]] = [lines[j], lines[i]];
  }
  const content = `${HEADER}\n${lines.join('')}`;
  writeFileSync(file, content);
  return { file, ...describe(lines, content) };
}
