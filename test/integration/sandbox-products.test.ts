import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxApi } from '../../src/sandbox/index.ts';
import type { SandboxApi, SandboxProduct } from '../../src/sandbox/index.ts';

const CATALOGUE: SandboxProduct[] = ['A1', 'A2', 'B1', 'B2', 'b1'].map((code, i) => ({ stock_code: code, description: `ITEM ${code} `, unit_price: `${i + 1}.50` }));

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
      expect(bundled.state.product('10002')).toEqual({ stock_code: '10002', description: 'INFLATABLE POLITICAL GLOBE ', unit_price: '0.85' });
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
    expect((await call('PUT', '/_admin/products', [{ stock_code: 'Z9', description: 'ZED', unit_price: '9.99' }])).body).toEqual({ products: 1 });
    expect((await call('GET', '/products')).body).toEqual({ data: [{ stock_code: 'Z9', description: 'ZED', unit_price: '9.99' }] });
    const bad = await call('PUT', '/_admin/products', [{ stock_code: 'Z9' }, { stock_code: 'Z9' }, { description: 'no code' }, 7]);
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([
      { field: '[1].stock_code', message: 'duplicates "Z9"' },
      { field: '[2].stock_code', message: 'must be a non-empty string' },
      { field: '[3]', message: 'must be a JSON object' },
    ]);
    expect((await call('GET', '/_admin/products')).body.data).toHaveLength(1);
  });

  it('PATCH /_admin/products/:code changes the given fields (any value, for tests), keeps the code; 404 for an unknown one', async () => {
    const patched = await call('PATCH', `/_admin/products/${encodeURIComponent('A2')}`, { unit_price: 'abc', stock_code: 'ignored' });
    expect(patched.body).toEqual({ stock_code: 'A2', description: 'ITEM A2 ', unit_price: 'abc' });
    expect(api.state.product('A2')).toEqual(patched.body);
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
