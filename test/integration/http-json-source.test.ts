import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Database } from '../../src/db/database.ts';
import { SourceError } from '../../src/errors/source-error.ts';
import { resolveHttpSettings } from '../../src/http/http-settings.ts';
import { column } from '../../src/column/column-type.ts';
import type { QuarantinedRow } from '../../src/source/quarantined-row.ts';
import type { SandboxApi } from '../../src/sandbox/start-sandbox-api.ts';
import type { HttpJsonPaging } from '../../src/source/http-json/http-json-paging.ts';
import { readHttpJsonRows, type HttpJsonReadOptions } from '../../src/source/http-json/read-http-json-rows.ts';
import { createTestDatabase, describeOneDialect, type TestDatabase } from '../helpers/dialects.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';
import { sourcesEnv, startSandbox } from '../helpers/sandbox.ts';
import { openTestDatabase } from '../helpers/test-db.ts';
import { createMigratedTestDatabase } from '../helpers/migrated-test-database.ts';

type FixtureProduct = { stock_code: string; description: string; unit_price: string; updated_at: string };

const CATALOGUE: FixtureProduct[] = JSON.parse(readFileSync(path.join(PROJECT_DIR, 'fixtures', 'online-retail', 'products.json'), 'utf8'));
const PRODUCTS = CATALOGUE.length;
/** The catalogue as the pipeline reads it: by `updated_at`, then `stock_code`. */
const BY_UPDATED_AT = [...CATALOGUE].sort((a, b) => (a.updated_at !== b.updated_at ? (a.updated_at < b.updated_at ? -1 : 1) : a.stock_code < b.stock_code ? -1 : 1));
/** The products that share the newest `updated_at`: read again by every incremental run (the mark is inclusive). */
const AT_MARK = CATALOGUE.filter((p) => p.updated_at === BY_UPDATED_AT.at(-1)!.updated_at).length;
const SOURCE_PATH = '/products?style=cursor&sort=updated_at';
const PIPELINE = 'online-retail-products';
const DAY = '2011-12-09';
/** The pipeline asks for 500 products a page. */
const PAGE = 500;
const PAGES = Math.ceil(PRODUCTS / PAGE);

/** Sends one admin request to a sandbox, as a test in another process would. */
async function admin(sandbox: SandboxApi, method: 'PUT' | 'PATCH', adminPath: string, body: unknown): Promise<number> {
  const response = await request(`${sandbox.url}${adminPath}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.body.dump();
  return response.statusCode;
}

const productRequests = (sandbox: SandboxApi) => sandbox.state.stats().requests.filter((r) => r.method === 'GET' && r.path === '/products');

it('the bundled catalogue is the data set’s ~3,900 products, sorted, with trailing spaces kept', () => {
  expect(PRODUCTS).toBe(3922);
  const codes = CATALOGUE.map((p) => p.stock_code);
  expect(codes).toEqual([...codes].sort());
  expect(new Set(codes).size).toBe(PRODUCTS);
  expect(CATALOGUE.filter((p) => p.description.endsWith(' ')).length).toBeGreaterThan(100);
  expect(CATALOGUE.every((p) => /^\d+(\.\d{1,3})?$/.test(p.unit_price) && Number(p.unit_price) > 0)).toBe(true);
  // When each product last sold, in UTC: the data set's year, the last invoice's products sharing the newest.
  expect(CATALOGUE.every((p) => /^201[01]-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/.test(p.updated_at))).toBe(true);
  expect([BY_UPDATED_AT.at(-1)!.updated_at, AT_MARK]).toEqual(['2011-12-09T12:50:00.000Z', 15]);
});

describe('the products pipeline: configuration errors', () => {
  const sqlite = { DATABASE_URL: 'sqlite:/nonexistent-dir-never-opened/x.sqlite3' };

  it('is listed by idem pipelines', async () => {
    const result = await runCli(['pipelines']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/online-retail-products\s+Europe\/London\s+-\s+Product catalogue API/);
  });

  it('without IDEM_SOURCES, or with --file, exits 2 naming the cause, before the run takes its lock or starts', async () => {
    const testDb = await createTestDatabase('sqlite', 'no IDEM_SOURCES');
    try {
      const env = { DATABASE_URL: testDb.url };
      expect((await runCli(['migrate'], env)).code).toBe(0);
      const result = await runCli(['run', PIPELINE, '--date', DAY], env);
      expect(result.code).toBe(2);
      expect(summaryOf(result).msg).toContain(`pipeline "${PIPELINE}" reads an HTTP API with no base URL: set IDEM_SOURCES='{"${PIPELINE}":{"url":"https://…"}}'`);

      // --file makes no sense for an API.
      const file = await runCli(['run', PIPELINE, '--file', 'package.json'], { ...env, IDEM_SOURCES: JSON.stringify({ [PIPELINE]: { url: 'http://127.0.0.1:9' } }) });
      expect(file.code).toBe(2);
      expect(summaryOf(file).msg).toContain(`pipeline "${PIPELINE}" reads an HTTP API, not a file: run it with --date YYYY-MM-DD`);

      const db = await openTestDatabase(testDb.url);
      expect(await db.knex('job_runs')).toEqual([]);
      await db.close();
    } finally {
      await testDb.drop();
    }
  });

  it('rejects a bad IDEM_SOURCES without echoing it (it may hold credentials)', async () => {
    const secret = 'Bearer s3cr3t-token';
    const badUrl = JSON.stringify({ [PIPELINE]: { url: 'https://user:pw@api.example.com', headers: { authorization: secret } } });
    const result = await runCli(['run', PIPELINE, '--date', DAY], { ...sqlite, IDEM_SOURCES: badUrl });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`IDEM_SOURCES ${PIPELINE}.url: must be a base URL without query, fragment or credentials`);
    expect(result.stderr + result.stdout).not.toContain('s3cr3t');
    expect(result.stderr + result.stdout).not.toContain('pw@');
    const notJson = await runCli(['run', PIPELINE, '--date', DAY], { ...sqlite, IDEM_SOURCES: `{${secret}` });
    expect([notJson.code, notJson.stderr]).toEqual([2, 'idem: IDEM_SOURCES must be a JSON object\n']);
  });
});

describeOneDialect('the products pipeline imports the sandbox catalogue over HTTP', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let sandbox: SandboxApi;
  const envFor = (overrides: Record<string, unknown> = {}) => ({ DATABASE_URL: testDb.url, IDEM_SOURCES: sourcesEnv(sandbox, overrides) });
  const run = (...extra: string[]) => runCli(['run', PIPELINE, '--date', DAY, ...extra], envFor());
  const readProducts = async (): Promise<Record<string, { description: string; unit_price: string; last_changed_run_key: string }>> => {
    const rows = await db.knex('products').select('source_system', 'source_reference', 'description', 'unit_price', 'last_changed_run_key');
    expect(new Set(rows.map((r: { source_system: string }) => r.source_system))).toEqual(new Set(['online-retail']));
    return Object.fromEntries(
      rows.map((r: Record<string, unknown>) => [
        r.source_reference,
        { description: r.description, unit_price: db.adapter.fromDriverValue(column.decimal(10, 3), r.unit_price), last_changed_run_key: r.last_changed_run_key },
      ]),
    );
  };

  beforeEach(async (context) => {
    testDb = await createMigratedTestDatabase(dialect, context.task.name);
    sandbox = await startSandbox();
    db = await openTestDatabase(testDb.url);
  });

  afterEach(async () => {
    await db.close();
    await sandbox.close();
    await testDb.drop();
  });

  it('imports every product exactly as served; a plain rerun reads only the products at the mark, --force reads everything; neither changes anything', async () => {
    const first = await run();
    expect(first.code).toBe(0);
    expect(summaryOf(first).counts.extract).toEqual({ source: `${sandbox.url}${SOURCE_PATH}`, rows: PRODUCTS, quarantined: 0, since: null, upTo: '2011-12-09T12:50:00.000Z' });
    expect(summaryOf(first).counts.upsert).toMatchObject({ inserted: PRODUCTS, updated: 0, unchanged: 0 });
    expect(productRequests(sandbox)).toHaveLength(PAGES);

    const products = await readProducts();
    expect(Object.keys(products)).toHaveLength(PRODUCTS);
    // Trailing space kept, price canonical with the column's 3 decimals.
    expect(products['10002']).toMatchObject({ description: 'INFLATABLE POLITICAL GLOBE ', unit_price: '0.850' });
    expect(products['PADS']).toMatchObject({ unit_price: '0.001' });
    // Codes that differ only in case are two products.
    expect(products['85123A']).toMatchObject({ description: 'CREAM HANGING HEART T-LIGHT HOLDER', unit_price: '2.950' });
    expect(products['85123a']).toBeDefined();
    expect(products['BANK CHARGES']).toBeDefined();

    const again = await run();
    expect([again.code, summaryOf(again).outcome]).toEqual([0, 'completed']);
    expect(summaryOf(again).counts.extract).toMatchObject({ rows: AT_MARK, since: '2011-12-09T12:50:00.000Z', upTo: '2011-12-09T12:50:00.000Z' });
    expect(summaryOf(again).counts.upsert).toMatchObject({ inserted: 0, updated: 0, unchanged: AT_MARK });
    expect(productRequests(sandbox).at(-1)!.query).toBe('?style=cursor&sort=updated_at&updated_since=2011-12-09T12%3A50%3A00.000Z&limit=500');

    const forced = await run('--force');
    expect(forced.code).toBe(0);
    expect(summaryOf(forced).counts.extract).toMatchObject({ rows: PRODUCTS, since: null });
    expect(summaryOf(forced).counts.upsert).toMatchObject({ inserted: 0, updated: 0, unchanged: PRODUCTS });
    expect(await readProducts()).toEqual(products);
    expect(await db.knex('job_runs').first()).toMatchObject({ job_name: PIPELINE, run_key: DAY, status: 'completed', attempts: 3 });
  });

  it('a description changed at the source: a plain run of the same date updates exactly that one row', async () => {
    expect((await run()).code).toBe(0);
    const before = await readProducts();
    expect(await admin(sandbox, 'PATCH', `/_admin/products/${encodeURIComponent('22423')}`, { description: 'REGENCY CAKESTAND 3 TIER (NEW)' })).toBe(200);

    const planned = await run('--dry-run');
    expect(planned.code).toBe(0);
    expect(summaryOf(planned).plan.target).toMatchObject({ insert: { count: 0 }, update: { count: 1, first: ['22423'] }, leave: { count: AT_MARK } });
    expect(await readProducts()).toEqual(before);

    const changed = await run();
    expect(changed.code).toBe(0);
    expect(summaryOf(changed).counts.upsert).toMatchObject({ inserted: 0, updated: 1, unchanged: AT_MARK });
    const after = await readProducts();
    expect(after['22423']).toEqual({ ...before['22423'], description: 'REGENCY CAKESTAND 3 TIER (NEW)' });
    const { ['22423']: _changed, ...rest } = after;
    const { ['22423']: _old, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
  });

  it('retries a page answered 503, then imports everything', async () => {
    sandbox.addFaults([{ route: 'GET /products', kind: 'status', status: 503, count: 1 }]);
    const result = await run();
    expect(result.code).toBe(0);
    expect(summaryOf(result).counts.upsert).toMatchObject({ inserted: PRODUCTS });
    const sent = productRequests(sandbox);
    expect(sent).toHaveLength(PAGES + 1);
    expect(sent[1]!.query).toBe(sent[0]!.query);
    expect(result.logs.find((l) => l.msg === 'retrying a source page: HTTP 503 Service Unavailable')).toMatchObject({ stage: 'extract', attempt: 1 });
  });

  it('fails the run naming the URL when a page keeps failing, and a plain rerun completes it', async () => {
    sandbox.addFaults([{ route: 'GET /products', kind: 'status', status: 503, count: 3 }]);
    const failed = await runCli(['run', PIPELINE, '--date', DAY], envFor({ http: { retry: { maxAttempts: 3 } } }));
    expect(failed.code).toBe(1);
    expect(summaryOf(failed).msg).toContain(`${sandbox.url}${SOURCE_PATH}&limit=500: HTTP 503 Service Unavailable, after 3 attempt(s)`);
    expect(Number((await db.knex('products').count({ n: '*' }))[0]!.n)).toBe(0);
    expect(await db.knex('job_runs').first()).toMatchObject({ status: 'failed' });

    const rerun = await run();
    expect(rerun.code).toBe(0);
    expect(summaryOf(rerun).counts.upsert).toMatchObject({ inserted: PRODUCTS });
  });

  it('quarantines a bad item with its page URL, its index in the stream and the reason; the rest load', async () => {
    // On the third page, so its index is counted across pages; planted with its own updated_at, to stay there.
    const index = 1234;
    const bad = BY_UPDATED_AT[index - 1]!;
    expect(await admin(sandbox, 'PATCH', `/_admin/products/${encodeURIComponent(bad.stock_code)}`, { unit_price: 'abc', updated_at: bad.updated_at })).toBe(200);

    const result = await run();
    expect(result.code).toBe(0);
    expect(summaryOf(result).counts.extract).toMatchObject({ rows: PRODUCTS - 1, quarantined: 1 });
    expect(summaryOf(result).counts.upsert).toMatchObject({ inserted: PRODUCTS - 1 });
    const [entry, ...others] = await db.knex('quarantine');
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ job_name: PIPELINE, run_key: DAY, line: index, reason: 'unit_price: expected a decimal number ≥ 0 with at most 3 decimals (got "abc")' });
    const pageUrl = new URL(entry.source);
    expect(`${pageUrl.origin}${pageUrl.pathname}`).toBe(`${sandbox.url}/products`);
    expect(pageUrl.searchParams.get('cursor')).toBe(new URL(`http://x${productRequests(sandbox)[2]!.query}`).searchParams.get('cursor'));
    expect(JSON.parse(entry.raw)).toEqual({ ...bad, unit_price: 'abc' });
    expect((await readProducts())[bad.stock_code]).toBeUndefined();
  });
});

describe('readHttpJsonRows against the sandbox', () => {
  let sandbox: SandboxApi;
  const Product = z.object({ stock_code: z.string(), description: z.string(), unit_price: z.string().regex(/^\d+(\.\d+)?$/, 'expected a decimal') });
  const items = (body: unknown) => (body as { data: unknown[] }).data;
  const fast: HttpJsonReadOptions = { http: resolveHttpSettings({ retry: { minDelayMs: 10, maxDelayMs: 50 } }) };

  async function readAll(pathAndQuery: string, paging: HttpJsonPaging, options: HttpJsonReadOptions = fast) {
    const quarantined: QuarantinedRow[] = [];
    const rows = [];
    for await (const row of readHttpJsonRows(`${sandbox.url}${pathAndQuery}`, { paging, items, row: Product }, async (q) => void quarantined.push(q), options)) rows.push(row);
    return { rows, quarantined };
  }

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  beforeEach(() => sandbox.reset());
  afterAll(() => sandbox.close());

  // The test's schema keeps the three fields it names.
  const expected = CATALOGUE.map(({ updated_at: _updated, ...value }, i) => ({ line: i + 1, value }));

  it.each<[string, string, HttpJsonPaging, number]>([
    ['cursor', '/products?style=cursor', { style: 'cursor', cursorField: 'next_cursor', cursorParam: 'cursor', limitParam: 'limit', limit: 700 }, Math.ceil(PRODUCTS / 700)],
    ['page-number', '/products', { style: 'page-number', pageParam: 'page', perPageParam: 'per_page', perPage: 400 }, Math.ceil(PRODUCTS / 400)],
    ['link-header', '/products?style=link', { style: 'link-header', perPageParam: 'per_page', perPage: 300 }, Math.ceil(PRODUCTS / 300)],
  ])('%s paging yields every product once, in order, numbered across pages', async (_style, pathAndQuery, paging, pages) => {
    const { rows, quarantined } = await readAll(pathAndQuery, paging);
    expect(quarantined).toEqual([]);
    expect(rows).toEqual(expected);
    expect(productRequests(sandbox)).toHaveLength(pages);
  });

  it('page-number paging ends at an empty page when the last one is full', async () => {
    sandbox.state.setProducts(CATALOGUE.slice(0, 20));
    const { rows } = await readAll('/products', { style: 'page-number', pageParam: 'page', perPageParam: 'per_page', perPage: 10 });
    expect(rows.map((r) => r.line)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(productRequests(sandbox).map((r) => r.query)).toEqual(['?page=1&per_page=10', '?page=2&per_page=10', '?page=3&per_page=10']);
  });

  it('retries a later page answered 503 (the same page again, not the stream from the start)', async () => {
    const retries: string[] = [];
    const paging: HttpJsonPaging = { style: 'cursor', cursorField: 'next_cursor', cursorParam: 'cursor', limitParam: 'limit', limit: 1000 };
    const stream = readHttpJsonRows(`${sandbox.url}/products?style=cursor`, { paging, items, row: Product }, async () => undefined, {
      ...fast,
      onRetry: (url, { failure }) => void retries.push(`${failure.reason} ${url}`),
    });
    const rows = [];
    for await (const row of stream) {
      rows.push(row);
      // Streamed: page 2 is requested only after page 1's last item was taken.
      if (rows.length === 1000) {
        expect(productRequests(sandbox)).toHaveLength(1);
        sandbox.addFaults([{ route: 'GET /products', kind: 'status', status: 503, retryAfterSeconds: 0 }]);
      }
    }
    expect(rows).toEqual(expected);
    const queries = productRequests(sandbox).map((r) => r.query);
    expect(queries).toHaveLength(Math.ceil(PRODUCTS / 1000) + 1);
    expect(queries[2]).toBe(queries[1]);
    expect(queries[1]).toContain('cursor=');
    expect(retries).toEqual([`HTTP 503 Service Unavailable ${sandbox.url}/products?style=cursor&limit=1000&cursor=${new URL(`http://x${queries[1]}`).searchParams.get('cursor')}`]);
  });

  it('retries a connection reset on a GET (its outcome is unknown, but a GET changes nothing)', async () => {
    sandbox.addFaults([{ route: 'GET /products', kind: 'reset' }]);
    const { rows } = await readAll('/products?style=link', { style: 'link-header', perPageParam: 'per_page', perPage: 1000 });
    expect(rows).toHaveLength(PRODUCTS);
    expect(productRequests(sandbox)).toHaveLength(Math.ceil(PRODUCTS / 1000) + 1);
  });

  it('quarantines items the schema rejects with the page URL, the index and the reason', async () => {
    sandbox.state.setProducts(CATALOGUE.slice(0, 12));
    sandbox.state.updateProduct(CATALOGUE[4]!.stock_code, { unit_price: 'abc' });
    sandbox.state.updateProduct(CATALOGUE[5]!.stock_code, { description: 42 });
    const { rows, quarantined } = await readAll('/products', { style: 'page-number', pageParam: 'page', perPageParam: 'per_page', perPage: 5 });
    expect(rows.map((r) => r.line)).toEqual([1, 2, 3, 4, 7, 8, 9, 10, 11, 12]);
    expect(quarantined.map(({ source, line, reason }) => ({ source, line, reason }))).toEqual([
      { source: `${sandbox.url}/products?page=1&per_page=5`, line: 5, reason: 'unit_price: expected a decimal (got "abc")' },
      { source: `${sandbox.url}/products?page=2&per_page=5`, line: 6, reason: 'description: Invalid input: expected string, received number (got 42)' },
    ]);
  });

  it('fails at once on a 404, naming the URL, after one attempt', async () => {
    const error = await readAll('/no-such-route', { style: 'link-header' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toBe(`${sandbox.url}/no-such-route: HTTP 404 Not Found, after 1 attempt(s): a rerun will not help until the cause is fixed`);
  });

  it('fails naming the URL when items(body) finds no array', async () => {
    const stream = readHttpJsonRows(`${sandbox.url}/products?style=cursor`, { paging: { style: 'cursor', cursorField: 'next_cursor', cursorParam: 'cursor' }, items: (body) => (body as { rows: unknown[] }).rows, row: Product }, async () => undefined, fast);
    await expect(stream.next()).rejects.toThrow(`${sandbox.url}/products?style=cursor: the pipeline's items(body) must return an array (got undefined)`);
  });
});

describe('readHttpJsonRows against a misbehaving API', () => {
  let server: Server;
  let base: string;
  let handler: (req: IncomingMessage, res: ServerResponse) => void;
  const seen: { url: string; authorization: string | undefined }[] = [];
  const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  const read = async (paging: HttpJsonPaging) => {
    const rows = [];
    const stream = readHttpJsonRows(`${base}/items`, { paging, items: (body) => (body as { data: unknown[] }).data, row: z.number() }, async () => undefined, {
      headers: { authorization: 'Bearer t0ken' },
    });
    for await (const row of stream) rows.push(row.value);
    return rows;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url!, authorization: req.headers.authorization });
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => void seen.splice(0));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the configured headers, follows relative next links and reads a nested cursor field', async () => {
    handler = (req, res) => json(res, { data: [seen.length] }, seen.length < 3 ? { link: `</items?after=${seen.length}>; rel="next", <https://elsewhere.example/x>; rel="last"` } : {});
    expect(await read({ style: 'link-header' })).toEqual([1, 2, 3]);
    expect(seen).toEqual([
      { url: '/items', authorization: 'Bearer t0ken' },
      { url: '/items?after=1', authorization: 'Bearer t0ken' },
      { url: '/items?after=2', authorization: 'Bearer t0ken' },
    ]);

    seen.splice(0);
    handler = (_req, res) => json(res, { data: [seen.length], meta: { next: seen.length < 2 ? seen.length * 10 : null } });
    expect(await read({ style: 'cursor', cursorField: 'meta.next', cursorParam: 'c' })).toEqual([1, 2]);
    expect(seen.map((s) => s.url)).toEqual(['/items', '/items?c=10']);
  });

  it('does not follow a next link to another origin (the headers may carry credentials)', async () => {
    handler = (_req, res) => json(res, { data: [1] }, { link: '<https://elsewhere.example/items?page=2>; rel="next"' });
    await expect(read({ style: 'link-header' })).rejects.toThrow(`${base}/items: the next link leaves ${base} (https://elsewhere.example/items?page=2): not followed, the request headers may carry credentials`);
  });

  it('stops an API that would page for ever', async () => {
    handler = (_req, res) => json(res, { data: [1], next: 'same' });
    await expect(read({ style: 'cursor', cursorField: 'next', cursorParam: 'cursor' })).rejects.toThrow('the API returned the cursor it was sent ("same"): paging would never end');
    handler = (_req, res) => json(res, { data: [1, 2] });
    await expect(read({ style: 'page-number', pageParam: 'pg', perPageParam: 'n', perPage: 2 })).rejects.toThrow('page 2 starts with the same item as the page before: does the API read "pg"?');
    handler = (req, res) => json(res, { data: [1] }, { link: `<${req.url}>; rel="next"` });
    await expect(read({ style: 'link-header' })).rejects.toThrow('the next link points to the same page: paging would never end');
  });

  it('fails on a body that is not JSON', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    await expect(read({ style: 'link-header' })).rejects.toThrow(`${base}/items: expected a JSON body (got content-type text/html)`);
  });
});
