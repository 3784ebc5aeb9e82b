// The hand-written MariaDB/MySQL floor: the mysql client (`--local-infile=1`) doing
// LOAD DATA LOCAL INFILE of the raw CSV, then one INSERT … SELECT … GROUP BY invoice_no …
// ON DUPLICATE KEY UPDATE into the target table idem migrated. Same record as the pipeline
// (see postgres-floor.js). The server has no time-zone tables here, so Europe/London → UTC is a
// CASE over the offsets luxon gives for the data's years (lib/london-offsets.js).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { mustSucceed, runTimed } from '../lib/child-process.js';
import { localOffsetRanges, offsetMinutesSql } from '../lib/london-offsets.js';
import { mysql, mysqlArgs } from '../lib/scratch-databases.js';

const SETUP_SQL = `
create table raw_lines (
  ln bigint not null auto_increment primary key,
  invoice_no varchar(20) not null,
  stock_code varchar(50) not null,
  description text not null,
  quantity int not null,
  invoice_date datetime not null,
  unit_price varchar(30) not null,
  customer_id varchar(30),
  country varchar(100) not null
) character set utf8mb4`;

const BUSINESS = ['document_type', 'customer_id', 'country', 'invoiced_at', 'line_count', 'total', '`lines`'];

const T = 'online_retail_invoices';

function upsertSql(offsetSql, runKey) {
  const price = 'cast(unit_price as decimal(20,6))';
  const same = `(${BUSINESS.map((c) => `${T}.${c}`).join(', ')}) <=> (${BUSINESS.map((c) => `values(${c})`).join(', ')})`;
  return `insert into online_retail_invoices
  (source_system, source_reference, document_type, customer_id, country, invoiced_at, line_count, total, \`lines\`,
   row_hash, first_run_key, last_changed_run_key, created_at, updated_at)
select 'online-retail', g.invoice_no, g.document_type, f.customer_id, f.country, g.invoiced_at, g.line_count, g.total, g.line_json,
       sha2(concat_ws('|', g.invoice_no, g.document_type, coalesce(f.customer_id, '\\\\N'), f.country, g.invoiced_at, g.line_count, g.total, g.line_json), 256),
       '${runKey}', '${runKey}', utc_timestamp(3), utc_timestamp(3)
from (
  select invoice_no,
         if(invoice_no like 'C%', 'credit_note', 'invoice') as document_type,
         min(ln) as first_ln,
         min(invoice_date) - interval ${offsetSql.replaceAll('$D', 'min(invoice_date)')} minute as invoiced_at,
         count(*) as line_count,
         cast(sum(${price} * quantity) as decimal(14,3)) as total,
         json_arrayagg(json_object('stock_code', stock_code, 'description', description, 'quantity', quantity,
           'unit_price', unit_price, 'amount', cast(cast(${price} * quantity as decimal(14,3)) as char)) order by ln) as line_json
  from raw_lines
  group by invoice_no
) g
join raw_lines f on f.ln = g.first_ln
on duplicate key update
  ${T}.last_changed_run_key = if(${same}, ${T}.last_changed_run_key, values(last_changed_run_key)),
  ${T}.updated_at = if(${same}, ${T}.updated_at, values(updated_at)),
  ${T}.row_hash = values(row_hash),
${BUSINESS.map((c) => `  ${T}.${c} = values(${c})`).join(',\n')}`;
}

/**
 * Runs the floor for one CSV file in one mysql client process on a database idem has migrated,
 * timed as a whole process; per-statement times from the client's `-vvv` "(N sec)" lines.
 * @param {{ tmp: string }} ctx @param {string} databaseUrl `mysql://…/db` @param {string} csvFile
 * @param {{ fromYear: number, toYear: number }} years the data's years, for the London offsets
 * @returns {Promise<{ seconds: number, rssKb: number, loadMs?: number, insertMs?: number }>}
 * @throws Error when the server's local_infile is off or the client fails.
 */
export async function runMariadbFloor(ctx, databaseUrl, csvFile, { fromYear, toYear }, label) {
  const localInfile = mysql(databaseUrl, "select @@global.local_infile");
  if (localInfile !== '1') throw new Error(`the MariaDB server has local_infile=${localInfile}: LOAD DATA LOCAL INFILE needs it on`);
  mysql(databaseUrl, 'drop table if exists raw_lines');
  mysql(databaseUrl, SETUP_SQL);
  const offsetSql = offsetMinutesSql('$D', localOffsetRanges('Europe/London', fromYear, toYear));
  const script = path.join(ctx.tmp, `${label}.sql`);
  const quoted = `'${csvFile.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  writeFileSync(script, `set session group_concat_max_len = 1073741824;
set time_zone = '+00:00';
start transaction;
load data local infile ${quoted} into table raw_lines character set utf8mb4
  fields terminated by ',' optionally enclosed by '"' escaped by ''
  lines terminated by '\\n' ignore 1 lines
  (invoice_no, stock_code, description, quantity, invoice_date, unit_price, @customer_id, country)
  set customer_id = nullif(regexp_replace(@customer_id, '\\\\.0+$', ''), '');
${upsertSql(offsetSql, 'floor')};
commit;
`);
  const result = mustSucceed(
    await runTimed('mysql', [...mysqlArgs(databaseUrl), '--local-infile=1', '-vvv'], { logDir: ctx.tmp, label, measureRss: true, stdinFile: script }),
    `${label} (mysql client)`,
  );
  // -vvv prints each statement and then "Query OK, N rows affected (S sec)": 6 statements.
  const secs = [...result.output.matchAll(/\(([\d.]+) sec\)/g)].map((m) => Number(m[1]) * 1000);
  const split = secs.length === 6 ? { loadMs: Math.round(secs[3]), insertMs: Math.round(secs[4]) } : {};
  return { seconds: result.seconds, rssKb: result.rssKb, ...split };
}
