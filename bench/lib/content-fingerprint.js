// One fingerprint of what a target table holds, comparable across dialects and writers: the
// business columns of online_retail_invoices normalised (instants as ISO UTC with ms, decimals as
// text with their scale, `lines` parsed as JSON and re-serialised with sorted keys), in key order.
// Inside `lines`, text is trimmed and a unit price is its shortest exact decimal text: the example
// pipeline stores canonical values (a re-export that pads a field or writes 2.5500 for 2.55 is the
// same invoice), while the floors keep the file's text.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const knexFactory = require('knex');
const { Big } = require('big.js');

/** knex settings to read a `DATABASE_URL` of the bench (postgres, mysql, sqlite). */
function knexConfig(url) {
  if (url.startsWith('sqlite:')) return { client: 'better-sqlite3', connection: { filename: url.slice('sqlite:'.length), readonly: true }, useNullAsDefault: true };
  if (url.startsWith('mysql:')) {
    const u = new URL(url);
    return {
      client: 'mysql2',
      connection: { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password), database: u.pathname.slice(1), dateStrings: true, supportBigNumbers: true },
    };
  }
  return { client: 'pg', connection: url };
}

const sortedJson = (value) =>
  Array.isArray(value) ? `[${value.map(sortedJson).join(',')}]`
    : value !== null && typeof value === 'object' ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(value[k])}`).join(',')}}`
      : JSON.stringify(value);

/** One line of `lines` as the pipeline's canonical values have it: text trimmed, the unit price's shortest exact decimal. */
const canonicalLine = (line) =>
  Object.fromEntries(Object.entries(line).map(([k, v]) => [k, k === 'unit_price' ? new Big(String(v)).toString() : typeof v === 'string' ? v.trim() : v]));

function isoInstant(value) {
  if (value instanceof Date) return value.toISOString();
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?/.exec(String(value));
  if (!m) throw new Error(`not an instant: ${JSON.stringify(value)}`);
  return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
}

/**
 * Reads every row of `online_retail_invoices` on `url`.
 * @param {{ linesInAnyOrder?: boolean }} [options] `linesInAnyOrder`: each invoice's lines are
 *   sorted before hashing, for files that hold the same lines in another order (default false).
 * @returns {Promise<{ rows: number, md5: string, text: string }>} `text` is "N rows, md5 X".
 */
export async function contentFingerprint(url, options = {}) {
  const db = knexFactory(knexConfig(url));
  try {
    const rows = await db('online_retail_invoices')
      .select('source_reference', 'document_type', 'customer_id', 'country', 'invoiced_at', 'line_count', 'total', 'lines');
    // Sorted here, by code unit: the servers' collations differ.
    rows.sort((a, b) => (a.source_reference < b.source_reference ? -1 : a.source_reference > b.source_reference ? 1 : 0));
    const hash = createHash('md5');
    for (const r of rows) {
      const lines = JSON.parse(r.lines).map((line) => sortedJson(canonicalLine(line)));
      if (options.linesInAnyOrder) lines.sort();
      hash.update([r.source_reference, r.document_type, r.customer_id ?? '\\N', String(r.country).trim(), isoInstant(r.invoiced_at), Number(r.line_count), String(r.total), `[${lines.join(',')}]`].join('|'));
      hash.update('\n');
    }
    const md5 = hash.digest('hex');
    return { rows: rows.length, md5, text: `${rows.length} rows, md5 ${md5}` };
  } finally {
    await db.destroy();
  }
}
