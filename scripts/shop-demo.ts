// `npm run demo:shop`: the second example pipeline, shop-orders, which reads a database through
// `sqlSource`. Seeds var/shop.sqlite3 from the online-retail files (scripts/seed-shop.ts), starts
// the sandbox accounting API on a free port, runs `idem migrate`, `idem run shop-orders` for
// 2010-12-02 (the orders shipped that day, each posted as an invoice) and the same run again (a
// no-op that sends nothing). A fresh var/shop-demo.sqlite3 for idem each time.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/open-database.ts';
import { startSandboxApi } from '../src/sandbox/start-sandbox-api.ts';
import { seedShop } from './seed-shop.ts';

const projectDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const databaseFile = path.join(projectDir, 'var', 'shop-demo.sqlite3');
const shopUrl = `sqlite:${path.join(projectDir, 'var', 'shop.sqlite3')}`;
for (const suffix of ['', '-wal', '-shm']) rmSync(`${databaseFile}${suffix}`, { force: true });
process.stdout.write(`shop database ${shopUrl}: ${await seedShop(shopUrl, projectDir)} orders\n`);
const sandbox = await startSandboxApi({ port: 0 });
const env = {
  ...process.env,
  DATABASE_URL: `sqlite:${databaseFile}`,
  IDEM_SOURCES: JSON.stringify({ shop: { url: shopUrl } }),
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

if ((await idem('migrate')) !== 0) process.exit(1);
if ((await idem('run', 'shop-orders', '--date', '2010-12-02')) !== 0) process.exit(1);
const postsBefore = sandbox.state.postRequests;
await idem('run', 'shop-orders', '--date', '2010-12-02');
const rerunPosts = sandbox.state.postRequests - postsBefore;
const remote = sandbox.state.records();
await sandbox.close();

const db = await openDatabase({ databaseUrl: env.DATABASE_URL, projectDir });
const rows = await db.knex('shop_orders').select('source_reference', 'country', 'shipped_at', 'total').orderBy('source_reference');
await db.close();
process.stdout.write(
  `\nshop_orders: ${rows.length} orders shipped on 2010-12-02 (Europe/London)\n` +
    rows.slice(0, 3).map((r: object) => `  ${JSON.stringify(r)}`).join('\n') + '\n  …\n' +
    `destination (sandbox): ${remote.length} invoices from ${postsBefore} POSTs on the first run, ${rerunPosts} on the rerun\n`,
);
