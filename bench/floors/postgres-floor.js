// The hand-written PostgreSQL floor: psql `\copy` of the raw CSV into an UNLOGGED table, then one
// set-based INSERT … SELECT … GROUP BY invoice_no … ON CONFLICT … DO UPDATE … WHERE … IS DISTINCT FROM
// into the target table idem migrated (same table, constraints and types as idem writes to).
// It reproduces the pipeline's record: invoice grouping, exact decimal total, lines JSON in file
// order, first line's customer and country, earliest time from Europe/London to UTC.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { mustSucceed, runTimed } from '../lib/child-process.js';
import { psql } from '../lib/scratch-databases.js';

/** The raw table, created untimed before the floor runs. */
const SETUP_SQL = `
create unlogged table raw_lines (
  ln bigserial primary key,            -- input order: "first line" and the lines array
  invoice_no text not null,
  stock_code text not null,
  description text not null,
  quantity integer not null,
  invoice_date timestamp not null,     -- Europe/London wall time, as in the files
  unit_price numeric not null,         -- keeps the file's scale, so ::text gives the file's text
  customer_id text,
  country text not null
)`;

/** One file's work, in its own transaction: begin, truncate, \copy, insert, commit (5 \timing lines). */
function fileBlock(csvFile, runKey) {
  const quoted = `'${csvFile.replaceAll("'", "''")}'`;
  return `begin;
truncate raw_lines restart identity;
\\copy raw_lines (invoice_no, stock_code, description, quantity, invoice_date, unit_price, customer_id, country) from ${quoted} with (format csv, header true, force_not_null (stock_code, description, country))
insert into online_retail_invoices as t
  (source_system, source_reference, document_type, customer_id, country, invoiced_at, line_count, total, lines,
   row_hash, first_run_key, last_changed_run_key, created_at, updated_at)
select 'online-retail', g.invoice_no, g.document_type, g.customer_id, g.country, g.invoiced_at, g.line_count, g.total, g.lines,
       md5(concat_ws('|', g.invoice_no, g.document_type, coalesce(g.customer_id, '\\N'), g.country,
                     g.invoiced_at::text, g.line_count::text, g.total::text, g.lines)),
       '${runKey}', '${runKey}', now(), now()
from (
  select invoice_no,
         case when invoice_no like 'C%' then 'credit_note' else 'invoice' end as document_type,
         (array_agg(nullif(regexp_replace(customer_id, '\\.0+$', ''), '') order by ln))[1] as customer_id,
         (array_agg(country order by ln))[1] as country,
         (min(invoice_date) at time zone 'Europe/London') as invoiced_at,
         count(*) as line_count,
         sum(quantity * unit_price)::numeric(14,3) as total,
         json_agg(json_build_object(
           'stock_code', stock_code, 'description', description, 'quantity', quantity,
           'unit_price', unit_price::text, 'amount', (quantity * unit_price)::numeric(14,3)::text) order by ln)::text as lines
  from raw_lines
  group by invoice_no
) g
on conflict (source_system, source_reference) do update set
  document_type = excluded.document_type, customer_id = excluded.customer_id, country = excluded.country,
  invoiced_at = excluded.invoiced_at, line_count = excluded.line_count, total = excluded.total, lines = excluded.lines,
  row_hash = excluded.row_hash, last_changed_run_key = excluded.last_changed_run_key, updated_at = excluded.updated_at
where (t.document_type, t.customer_id, t.country, t.invoiced_at, t.line_count, t.total, t.lines)
      is distinct from
      (excluded.document_type, excluded.customer_id, excluded.country, excluded.invoiced_at, excluded.line_count,
       excluded.total, excluded.lines);
commit;
`;
}

/**
 * Runs the floor for `csvFiles` (each its own transaction, in order) in ONE psql session on a
 * database idem has migrated, and times it as a whole process.
 * @param {{ tmp: string }} ctx @param {string} databaseUrl @param {string[]} csvFiles @param {string} label
 * @returns {Promise<{ seconds: number, rssKb: number, copyMs: number, insertMs: number, statementMs: number[] }>}
 *   `copyMs` / `insertMs`: psql \\timing of the \\copy and INSERT statements, summed over files.
 * @throws Error when psql fails or its \\timing output does not have 5 lines per file.
 */
export async function runPostgresFloor(ctx, databaseUrl, csvFiles, label) {
  psql(databaseUrl, 'drop table if exists raw_lines');
  psql(databaseUrl, SETUP_SQL);
  const script = path.join(ctx.tmp, `${label}.sql`);
  writeFileSync(script, `\\set ON_ERROR_STOP on\n\\timing on\n${csvFiles.map((f) => fileBlock(f, 'floor')).join('')}`);
  const result = mustSucceed(await runTimed('psql', ['-X', '-q', '-d', databaseUrl, '-f', script], { logDir: ctx.tmp, label, measureRss: true }), `${label} (psql)`);
  const statementMs = [...result.output.matchAll(/^Time: ([\d.]+) ms/gm)].map((m) => Number(m[1]));
  if (statementMs.length !== 5 * csvFiles.length) throw new Error(`${label}: expected ${5 * csvFiles.length} \\timing lines, got ${statementMs.length}`);
  let copyMs = 0;
  let insertMs = 0;
  for (let i = 0; i < statementMs.length; i += 5) {
    copyMs += statementMs[i + 2];
    insertMs += statementMs[i + 3];
  }
  return { seconds: result.seconds, rssKb: result.rssKb, copyMs: Math.round(copyMs), insertMs: Math.round(insertMs), statementMs };
}
