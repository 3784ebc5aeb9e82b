// `npm run demo`: the example pipeline on the embedded SQLite default, with a bundled real day.
// Runs `idem migrate`, `idem run` for 2010-12-01, the same run again (a no-op), and prints what
// the target table holds. It uses a fresh var/demo.sqlite3 each time so the first run is shown.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Big } from 'big.js';
import { openDatabase } from '../src/db/open-database.ts';

const projectDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const databaseFile = path.join(projectDir, 'var', 'demo.sqlite3');
const env = { ...process.env, DATABASE_URL: `sqlite:${databaseFile}` };

function idem(...args: string[]): number {
  process.stdout.write(`\n$ idem ${args.join(' ')}\n`);
  const result = spawnSync(process.execPath, [path.join(projectDir, 'bin', 'idem.js'), ...args], { env, stdio: 'inherit', cwd: projectDir });
  process.stdout.write(`(exit code ${result.status})\n`);
  return result.status ?? 1;
}

rmSync(databaseFile, { force: true });
for (const suffix of ['-wal', '-shm']) rmSync(`${databaseFile}${suffix}`, { force: true });
if (idem('migrate') !== 0) process.exit(1);
if (idem('run', 'online-retail-invoices', '--date', '2010-12-01') !== 0) process.exit(1);
idem('run', 'online-retail-invoices', '--date', '2010-12-01');

const db = openDatabase({ databaseUrl: env.DATABASE_URL, projectDir });
const rows = await db.knex('online_retail_invoices').select('source_reference', 'document_type', 'customer_id', 'line_count', 'total').orderBy('source_reference');
const run = await db.knex('job_runs').first('job_name', 'run_key', 'status', 'attempts', 'triggered_by');
await db.close();
const total = rows.reduce((sum: Big, row: { total: string }) => sum.plus(row.total), new Big(0));
process.stdout.write(
  `\n${databaseFile}\n` +
    `job_runs: ${JSON.stringify(run)}\n` +
    `online_retail_invoices: ${rows.length} rows, ${rows.filter((r: { document_type: string }) => r.document_type === 'credit_note').length} credit notes, total ${total.toFixed(2)} GBP\n` +
    rows.slice(0, 3).map((r: object) => `  ${JSON.stringify(r)}`).join('\n') + '\n  …\n',
);
