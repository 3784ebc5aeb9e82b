#!/usr/bin/env node
// The hand-written post floor: what this machine and the sandbox allow, with no database work and
// no ledger. Reads every invoice of the target table idem imported (untimed), builds the body the
// example pipeline's destination builds, then POSTs them all with undici at a fixed concurrency:
// one Idempotency-Key header each, every response read to its end and parsed as JSON, a status
// other than 201 counted as a failure (never retried). Runs as its own process, like idem.
//
//   node bench/floors/post-floor.js DATABASE_URL SANDBOX_URL CONCURRENCY
//
// Prints one JSON line: { "posted": n, "failed": n, "ms": wall time of the sends }.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Agent, request } from 'undici';

const [databaseUrl, sandboxUrl, concurrencyArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
if (!databaseUrl || !sandboxUrl || !(concurrency > 0)) {
  process.stderr.write('usage: node bench/floors/post-floor.js DATABASE_URL SANDBOX_URL CONCURRENCY\n');
  process.exit(2);
}

const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
const { rows } = await client.query(`select source_reference, document_type, row_hash, customer_id, country,
  to_char(invoiced_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as issued_at, total::text as total, lines
  from online_retail_invoices order by source_reference`);
await client.end();
const bodies = rows.map((r) => ({
  key: r.row_hash,
  body: {
    reference: r.source_reference, type: r.document_type, version: r.row_hash, customer_id: r.customer_id,
    // A json column is text on PostgreSQL (see ColumnType): the body carries the parsed lines, as idem's does.
    country: r.country, issued_at: r.issued_at, currency: 'GBP', total: r.total, lines: JSON.parse(r.lines),
  },
}));

const agent = new Agent({ connections: concurrency });
const url = `${sandboxUrl}/invoices`;
let next = 0;
let posted = 0;
let failed = 0;
async function sender() {
  while (next < bodies.length) {
    const { key, body } = bodies[next++];
    const res = await request(url, {
      dispatcher: agent,
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    const parsed = JSON.parse(await res.body.text());
    if (res.statusCode === 201 && parsed.id) posted += 1;
    else failed += 1;
  }
}
const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, sender));
const ms = performance.now() - started;
await agent.close();
process.stdout.write(`${JSON.stringify({ posted, failed, ms: Math.round(ms) })}\n`);
