// `npm run demo`: the example pipeline on the embedded SQLite default, with a bundled real day.
// Starts the sandbox accounting API on a free port, runs `idem migrate`, `idem run` for
// 2010-12-01 (extract, stage, upsert, post), the same run again (a no-op that sends nothing), and
// prints what the target table and the destination hold. A fresh var/demo.sqlite3 each time.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Big } from 'big.js';
import { openDatabase } from '../src/db/open-database.ts';
import { startSandboxApi } from '../src/sandbox/start-sandbox-api.ts';

const projectDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const databaseFile = path.join(projectDir, 'var', 'demo.sqlite3');
const sandbox = await startSandboxApi({ port: 0 });
const env = {
  ...process.env,
  DATABASE_URL: `sqlite:${databaseFile}`,
  IDEM_DESTINATIONS: JSON.stringify({ 'sandbox-accounting': { url: sandbox.url } }),
};
process.stdout.write(`sandbox accounting API on ${sandbox.url}\n`);

async function idem(...args: string[]): Promise<number> {
  process.stdout.write(`\n$ idem ${args.join(' ')}\n`);
  // Asynchronous, so the sandbox in this process keeps answering while idem runs.
  const child = spawn(process.execPath, [path.join(projectDir, 'bin', 'idem.js'), ...args], { env, stdio: 'inherit', cwd: projectDir });
  const code = await new Promise<number>((resolve) => child.on('close', (status) => resolve(status ?? 1)));
  process.stdout.write(`(exit code ${code})\n`);
  return code;
}

rmSync(databaseFile, { force: true });
for (const suffix of ['-wal', '-shm']) rmSync(`${databaseFile}${suffix}`, { force: true });
if ((await idem('migrate')) !== 0) process.exit(1);
if ((await idem('run', 'online-retail-invoices', '--date', '2010-12-01')) !== 0) process.exit(1);
const postsBefore = sandbox.state.postRequests;
await idem('run', 'online-retail-invoices', '--date', '2010-12-01');
const rerunPosts = sandbox.state.postRequests - postsBefore;
const remote = sandbox.state.records();
await sandbox.close();

const db = await openDatabase({ databaseUrl: env.DATABASE_URL, projectDir });
const rows = await db.knex('online_retail_invoices').select('source_reference', 'document_type', 'customer_id', 'line_count', 'total').orderBy('source_reference');
const run = await db.knex('job_runs').first('job_name', 'run_key', 'status', 'attempts', 'triggered_by');
await db.close();
const total = rows.reduce((sum: Big, row: { total: string }) => sum.plus(row.total), new Big(0));
process.stdout.write(
  `\n${databaseFile}\n` +
    `job_runs: ${JSON.stringify(run)}\n` +
    `online_retail_invoices: ${rows.length} rows, ${rows.filter((r: { document_type: string }) => r.document_type === 'credit_note').length} credit notes, total ${total.toFixed(2)} GBP\n` +
    rows.slice(0, 3).map((r: object) => `  ${JSON.stringify(r)}`).join('\n') + '\n  …\n' +
    `destination (sandbox): ${remote.length} records from ${postsBefore} POSTs on the first run, ${rerunPosts} on the rerun; ` +
    `${remote.filter((r) => r.type === 'credit_note').length} credit notes\n` +
    remote.slice(0, 2).map((r) => `  ${JSON.stringify({ id: r.id, reference: r.reference, type: r.type, total: r.total, version: String(r.version).slice(0, 12) })}`).join('\n') + '\n  …\n' +
    `\nSee these runs as a page: npx idem ui   (then open the URL it prints)\n`,
);
