import { writeFileSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { http, HttpResponse } from 'msw';
import { startPipelineTest, type PipelineTest } from 'idem/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { ADMIN_URLS, DIALECTS, unavailableReason, type TestDialect } from '../helpers/dialects.ts';
import { PROJECT_DIR } from '../helpers/run-cli.ts';
import { openTestDatabase } from '../helpers/test-db.ts';

// The example pipeline under the test kit: two invoices of 2010-12-01 (nine lines), the
// accounting API described as msw handlers on a loopback port.
const FIXTURE = 'test/pipelines/fixtures/online-retail-two-invoices.csv';

/** The databases on a server (PostgreSQL or MySQL/MariaDB; SQL Server through sys.databases). */
async function listDatabases(admin: Database, dialect: TestDialect): Promise<string[]> {
  if (dialect === 'postgres') return ((await admin.knex.raw('select datname as name from pg_database')).rows as { name: string }[]).map((r) => r.name);
  if (dialect === 'mysql') return ((await admin.knex.raw('show databases'))[0] as Record<string, string>[]).map((r) => Object.values(r)[0]!);
  return ((await admin.knex.raw('select name from sys.databases')) as { name: string }[]).map((r) => r.name);
}

/** The accounting API: create `201 { id }` (ids in order), and replace a record by its id `200`. */
function accountingApi() {
  let next = 0;
  return [
    http.post('/invoices', async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      next += 1;
      return HttpResponse.json({ ...body, id: `inv-${next}` }, { status: 201 });
    }),
    http.put('/invoices/:id', async ({ request, params }) => HttpResponse.json({ ...((await request.json()) as Record<string, unknown>), id: params.id }, { status: 200 })),
  ];
}

describe('online-retail-invoices, with the test kit', () => {
  let kit: PipelineTest | undefined;
  afterEach(async () => {
    await kit?.close();
    kit = undefined;
  });

  it('loads two invoices, posts each once, does nothing on a rerun and posts a change once', async () => {
    kit = await startPipelineTest({ pipeline: 'online-retail-invoices', projectDir: PROJECT_DIR, databaseUrl: 'sqlite:', destinations: { 'sandbox-accounting': accountingApi() } });
    const first = await kit.run(['--file', FIXTURE]);
    expect([first.exitCode, first.outcome], first.child.stderr).toEqual([0, 'completed']);
    expect(first.counts.upsert).toMatchObject({ inserted: 2, updated: 0 });
    const rows = await kit.rows();
    expect(rows.map((row) => [row.source_reference, row.line_count, String(row.total)])).toEqual([
      ['536365', 7, '139.120'],
      ['536366', 2, '22.200'],
    ]);
    const posts = kit.requests();
    expect(posts.map((request) => [request.method, request.path, request.status])).toEqual([
      ['POST', '/invoices', 201],
      ['POST', '/invoices', 201],
    ]);
    expect(posts.map((request) => (request.body as { reference: string; total: string }).total).sort()).toEqual(['139.120', '22.200']);
    expect(new Set(posts.map((request) => request.headers['idempotency-key'])).size).toBe(2);
    expect((await kit.ledger()).map((item) => [item.sourceReference, item.status])).toEqual([
      ['536365', 'posted'],
      ['536366', 'posted'],
    ]);

    const again = await kit.run(['--file', FIXTURE]);
    expect(again.exitCode).toBe(0);
    expect(again.outcome).toBe('noop');
    expect(kit.requests()).toHaveLength(2);

    // One quantity changed (536366's first line 6 → 7): one update, one more request, which
    // replaces the record the API already holds (PUT to the id its create answered).
    const dir = mkdtempSync(path.join(tmpdir(), 'idem-kit-'));
    const changed = path.join(dir, 'changed.csv');
    writeFileSync(changed, readFileSync(path.join(PROJECT_DIR, FIXTURE), 'utf8').replace('536366,22633,HAND WARMER UNION JACK,6,', '536366,22633,HAND WARMER UNION JACK,7,'));
    const third = await kit.run(['--file', changed]);
    expect([third.exitCode, third.outcome], third.child.stderr).toEqual([0, 'completed']);
    expect(third.counts.upsert).toMatchObject({ inserted: 0, updated: 1, unchanged: 1 });
    expect(kit.requests()).toHaveLength(3);
    const update = kit.requests()[2]!;
    // The create's id: the handlers number records in the order the POSTs arrived.
    const createdId = `inv-${posts.findIndex((request) => (request.body as { reference: string }).reference === '536366') + 1}`;
    expect([update.method, update.path, update.status]).toEqual(['PUT', `/invoices/${createdId}`, 200]);
    expect(update.body).toMatchObject({ reference: '536366', total: '24.050' });
  });

  it('says why an item failed when the API refuses it', async () => {
    kit = await startPipelineTest({
      pipeline: 'online-retail-invoices',
      projectDir: PROJECT_DIR,
      databaseUrl: 'sqlite:',
      destinations: { 'sandbox-accounting': [http.post('/invoices', () => HttpResponse.json({ error: 'currency GBP is not enabled' }, { status: 422 }))] },
    });
    const run = await kit.run(['--file', FIXTURE]);
    expect(run.exitCode).toBe(3);
    const ledger = await kit.ledger();
    expect(ledger.map((item) => item.status)).toEqual(['failed', 'failed']);
    expect(String(ledger[0]!.lastError)).toContain('currency GBP is not enabled');
  });

  for (const dialect of DIALECTS.filter((d) => d !== 'sqlite')) {
    const reason = unavailableReason(dialect);
    it.skipIf(reason !== undefined)(`makes its throwaway database on the ${dialect} server of the URL given, and drops it${reason ? ` (skipped: ${reason})` : ''}`, async () => {
      kit = await startPipelineTest({ pipeline: 'online-retail-invoices', projectDir: PROJECT_DIR, databaseUrl: ADMIN_URLS[dialect]!, destinations: { 'sandbox-accounting': accountingApi() } });
      const name = kit.databaseUrl.replace(/^[a-z]+:\/\/[^/]*\/([^?]*).*$/, '$1');
      expect(name).toMatch(/^idem_test_[0-9a-f]{12}$/);
      const run = await kit.run(['--file', FIXTURE]);
      expect([run.exitCode, run.outcome], run.child.stderr).toEqual([0, 'completed']);
      expect((await kit.rows()).map((row) => row.source_reference)).toEqual(['536365', '536366']);
      expect(kit.requests()).toHaveLength(2);
      await kit.close();
      kit = undefined;
      const admin = await openTestDatabase(ADMIN_URLS[dialect]!);
      try {
        expect(await listDatabases(admin, dialect)).not.toContain(name);
      } finally {
        await admin.close();
      }
    });
  }
});
