import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxApi } from '../../src/sandbox/index.ts';
import type { SandboxApi, SandboxProduct } from '../../src/sandbox/index.ts';

// Changed in another order than their codes sort in, two of them at the same instant.
const UPDATED = ['2011-01-03T00:00:00.000Z', '2011-01-01T00:00:00.000Z', '2011-01-04T00:00:00.000Z', '2011-01-02T00:00:00.000Z', '2011-01-03T00:00:00.000Z'];
const CATALOGUE: SandboxProduct[] = ['A1', 'A2', 'B1', 'B2', 'b1'].map((code, i) => ({ stock_code: code, description: `ITEM ${code} `, unit_price: `${i + 1}.50`, updated_at: UPDATED[i] }));
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let api: SandboxApi;

beforeEach(async () => {
  api = await startSandboxApi({ products: CATALOGUE });
});

afterEach(async () => {
  await api.close();
});

async function call(method: 'GET' | 'PUT' | 'PATCH', path: string, body?: unknown) {
  const response = await request(`${api.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as any };
}

const codes = (body: { data: SandboxProduct[] }) => body.data.map((p) => p.stock_code);

describe('sandbox GET /products', () => {
  it('serves the bundled catalogue by default', async () => {
    const bundled = await startSandboxApi();
    try {
      expect(bundled.state.products()).toHaveLength(3922);
      expect(bundled.state.product('10002')).toEqual({ stock_code: '10002', description: 'INFLATABLE POLITICAL GLOBE ', unit_price: '0.85', updated_at: '2011-04-18T11:56:00.000Z' });
    } finally {
      await bundled.close();
    }
  });

  it('pages by cursor: { data, next_cursor }, null on the last page', async () => {
    const first = await call('GET', '/products?style=cursor&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data[0]).toEqual(CATALOGUE[0]);
    expect(codes(first.body)).toEqual(['A1', 'A2']);
    const second = await call('GET', `/products?style=cursor&limit=2&cursor=${first.body.next_cursor}`);
    expect(codes(second.body)).toEqual(['B1', 'B2']);
    const third = await call('GET', `/products?style=cursor&limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body).toEqual({ data: [CATALOGUE[4]], next_cursor: null });
  });

  it('keeps a cursor stable when the catalogue changes between pages (keyset, not offset)', async () => {
    const first = await call('GET', '/products?style=cursor&limit=2');
    api.state.setProducts([{ stock_code: 'A0' }, ...CATALOGUE]);
    expect(codes((await call('GET', `/products?style=cursor&limit=2&cursor=${first.body.next_cursor}`)).body)).toEqual(['B1', 'B2']);
  });

  it('pages by number: { data }, empty past the end', async () => {
    expect(codes((await call('GET', '/products?page=2&per_page=2')).body)).toEqual(['B1', 'B2']);
    expect((await call('GET', '/products?page=4&per_page=2')).body).toEqual({ data: [] });
    expect(codes((await call('GET', '/products')).body)).toEqual(['A1', 'A2', 'B1', 'B2', 'b1']);
  });

  it('pages by Link header: rel="next" (absent on the last page) and rel="last", absolute URLs', async () => {
    const first = await call('GET', '/products?style=link&page=1&per_page=2');
    expect(first.headers.link).toBe(
      `<${api.url}/products?style=link&page=2&per_page=2>; rel="next", <${api.url}/products?style=link&page=3&per_page=2>; rel="last"`,
    );
    const last = await call('GET', '/products?style=link&page=3&per_page=2');
    expect(codes(last.body)).toEqual(['b1']);
    expect(last.headers.link).toBe(`<${api.url}/products?style=link&page=3&per_page=2>; rel="last"`);
  });

  it('answers 400 for a bad size, page, style or cursor, never a silently shorter page', async () => {
    expect((await call('GET', '/products?per_page=1001')).body).toEqual({ error: 'validation_failed', details: [{ field: 'per_page', message: 'must be an integer from 1 to 1000' }] });
    expect((await call('GET', '/products?style=cursor&limit=0')).status).toBe(400);
    expect((await call('GET', '/products?page=0')).status).toBe(400);
    expect((await call('GET', '/products?style=offset')).status).toBe(400);
    expect((await call('GET', '/products?style=cursor&cursor=nope')).body).toEqual({ error: 'validation_failed', details: [{ field: 'cursor', message: 'is not a cursor this API issued' }] });
  });

  it('sorts by updated_at, then code, with sort=updated_at', async () => {
    expect(codes((await call('GET', '/products?sort=updated_at')).body)).toEqual(['A2', 'B2', 'A1', 'b1', 'B1']);
    expect(codes((await call('GET', '/products?style=link&sort=updated_at&per_page=2&page=2')).body)).toEqual(['A1', 'b1']);
  });

  it('updated_since=T serves the products changed at or after T, in updated_at order, by cursor across pages', async () => {
    const since = encodeURIComponent('2011-01-03T00:00:00.000Z');
    const first = await call('GET', `/products?style=cursor&limit=2&updated_since=${since}`);
    expect(codes(first.body)).toEqual(['A1', 'b1']);
    // A product changed between pages moves behind the reader: it is served after the others, never skipped.
    api.state.updateProduct('A2', { description: 'CHANGED' });
    const second = await call('GET', `/products?style=cursor&limit=2&updated_since=${since}&cursor=${first.body.next_cursor}`);
    expect(codes(second.body)).toEqual(['B1', 'A2']);
    expect(second.body.next_cursor).toBeNull();
    // Another offset: 14:00 in Paris is 13:00 UTC, the same instant.
    expect(codes((await call('GET', `/products?updated_since=${encodeURIComponent('2011-01-04T01:00:00+01:00')}`)).body)).toEqual(['B1', 'A2']);
  });

  it('answers 400 for an updated_since that is not an instant with its offset, or another sort', async () => {
    for (const bad of ['yesterday', '2011-01-03', '2011-01-03T00:00:00']) {
      expect((await call('GET', `/products?updated_since=${bad}`)).body).toEqual({
        error: 'validation_failed',
        details: [{ field: 'updated_since', message: 'must be an ISO 8601 date and time with its offset, such as 2011-12-09T12:50:00Z' }],
      });
    }
    expect((await call('GET', '/products?sort=price')).status).toBe(400);
  });

  it('applies scripted faults with route GET /products, and only those', async () => {
    api.addFaults([
      { kind: 'status', status: 503, reference: 'R-1' },
      { route: 'GET /products', kind: 'status', status: 429, retryAfterSeconds: 3 },
    ]);
    const limited = await call('GET', '/products');
    expect([limited.status, limited.headers['retry-after'], limited.body]).toEqual([429, '3', { error: 'too_many_requests' }]);
    expect((await call('GET', '/products')).status).toBe(200);
    // The POST fault is still queued for its invoice.
    const admin = await request(`${api.url}/_admin/faults`, { method: 'POST', body: '{}' });
    expect(((await admin.body.json()) as { faults: unknown[] }).faults).toEqual([{ kind: 'status', status: 503, reference: 'R-1', count: 1 }]);
  });

  it('applies latency to GET /products like to the other API routes', async () => {
    api.configure({ latencyMs: 150 });
    const started = performance.now();
    expect((await call('GET', '/products')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('logs each request with its query', async () => {
    await call('GET', '/products?style=cursor&limit=2');
    expect(api.state.stats().requests).toMatchObject([{ method: 'GET', path: '/products', query: '?style=cursor&limit=2', reference: null }]);
  });
});

describe('sandbox catalogue admin', () => {
  it('PUT /_admin/products replaces the catalogue; a bad one is a 400 and changes nothing', async () => {
    const before = Date.now();
    expect((await call('PUT', '/_admin/products', [{ stock_code: 'Z9', description: 'ZED', unit_price: '9.99' }])).body).toEqual({ products: 1 });
    // A product without updated_at is stamped with the sandbox's clock.
    const [served] = (await call('GET', '/products')).body.data;
    expect(served).toEqual({ stock_code: 'Z9', description: 'ZED', unit_price: '9.99', updated_at: expect.stringMatching(ISO_INSTANT) });
    expect(Date.parse(served.updated_at)).toBeGreaterThanOrEqual(before);
    const bad = await call('PUT', '/_admin/products', [{ stock_code: 'Z9' }, { stock_code: 'Z9' }, { description: 'no code' }, 7]);
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      { field: '[1].stock_code', message: 'duplicates "Z9"' },
      { field: '[2].stock_code', message: 'must be a non-empty string' },
      { field: '[3]', message: 'must be a JSON object' },
    ]);
    expect((await call('GET', '/_admin/products')).body.data).toHaveLength(1);
  });

  it('PATCH /_admin/products/:code changes the given fields (any value, for tests), keeps the code, stamps updated_at; 404 for an unknown one', async () => {
    const patched = await call('PATCH', `/_admin/products/${encodeURIComponent('A2')}`, { unit_price: 'abc', stock_code: 'ignored' });
    expect(patched.body).toEqual({ stock_code: 'A2', description: 'ITEM A2 ', unit_price: 'abc', updated_at: expect.stringMatching(ISO_INSTANT) });
    expect(api.state.product('A2')).toEqual(patched.body);
    // Two changes never share an instant, however quick; a given updated_at is kept (tests plant values).
    const stamps = [patched.body.updated_at];
    for (const code of ['A1', 'B1', 'B2']) stamps.push((await call('PATCH', `/_admin/products/${code}`, { description: 'CHANGED' })).body.updated_at);
    expect(stamps.map((s) => Date.parse(s))).toEqual([...new Set(stamps.map((s) => Date.parse(s)))].sort((a, b) => a - b));
    expect((await call('PATCH', '/_admin/products/b1', { updated_at: 'not a time' })).body.updated_at).toBe('not a time');
    expect((await call('PATCH', '/_admin/products/NOPE', { description: 'x' })).status).toBe(404);
    expect((await call('PATCH', '/_admin/products/A2', [1])).status).toBe(400);
  });

  it('reset() restores the initial catalogue; admin requests are not logged', async () => {
    api.state.updateProduct('A1', { description: 'CHANGED' });
    await call('PUT', '/_admin/products', []);
    expect(api.state.stats().requests).toEqual([]);
    api.reset();
    expect(api.state.products()).toEqual(CATALOGUE);
  });
});
