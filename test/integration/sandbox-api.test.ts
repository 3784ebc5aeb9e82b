import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startSandboxApi } from '../../src/sandbox/index.ts';
import type { SandboxApi, SandboxRequestLog } from '../../src/sandbox/index.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

interface CallOptions {
  body?: unknown;
  key?: string;
  headersTimeout?: number;
}

let api: SandboxApi;
let seen: SandboxRequestLog[];

beforeEach(async () => {
  seen = [];
  api = await startSandboxApi({ onRequest: (entry) => seen.push(entry) });
});

afterEach(async () => {
  await api.close();
});

async function call(method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  const response = await request(`${api.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    headersTimeout: options.headersTimeout,
  });
  return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as Record<string, unknown> };
}

const invoice = (reference: string, extra: Record<string, unknown> = {}) => ({
  reference,
  type: 'invoice',
  version: 1,
  customer_id: 'C-1',
  total: '120.00',
  currency: 'EUR',
  ...extra,
});

const postInvoice = (body: unknown, options: Omit<CallOptions, 'body'> = {}) => call('POST', '/invoices', { ...options, body });

describe('sandbox accounting API', () => {
  it('creates invoices with sequential ids and echoes the body', async () => {
    const first = await postInvoice(invoice('R-1'));
    const second = await postInvoice({ reference: 'R-2', type: 'credit_note' });

    expect(first.status).toBe(201);
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.body).toMatchObject({ id: 'inv_000001', reference: 'R-1', type: 'invoice', version: 1, total: '120.00', currency: 'EUR' });
    expect(typeof first.body.created_at).toBe('string');
    expect(second.body).toMatchObject({ id: 'inv_000002', reference: 'R-2', type: 'credit_note' });
    expect(api.state.records().map((record) => record.id)).toEqual(['inv_000001', 'inv_000002']);
  });

  it('rejects a body without a string reference or a known type', async () => {
    const reply = await postInvoice({ reference: 7, type: 'receipt' });

    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      error: 'validation_failed',
      details: [
        { field: 'reference', message: 'must be a non-empty string' },
        { field: 'type', message: 'must be "invoice", "credit_note" or "item"' },
      ],
    });
    expect(api.state.records()).toHaveLength(0);
  });

  it('replays the first response for the same idempotency key and body', async () => {
    const first = await postInvoice(invoice('R-1'), { key: 'key-1' });
    // Same body with keys in another order: the comparison is on canonical JSON.
    const { reference, ...rest } = invoice('R-1');
    const second = await postInvoice({ ...rest, reference }, { key: 'key-1' });

    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(api.state.countByReference('R-1')).toBe(1);
    expect(api.state.postRequests).toBe(2);
  });

  it('answers 422 when a key is reused with a different body', async () => {
    await postInvoice(invoice('R-1'), { key: 'key-1' });
    const reply = await postInvoice(invoice('R-1', { total: '99.00' }), { key: 'key-1' });

    expect(reply.status).toBe(422);
    expect(reply.body.error).toBe('idempotency_key_reused');
    expect(api.state.countByReference('R-1')).toBe(1);
  });

  it('answers 409 to a concurrent duplicate while the first request is in flight', async () => {
    api.configure({ latencyMs: 200 });
    const replies = await Promise.all([postInvoice(invoice('R-1'), { key: 'key-1' }), postInvoice(invoice('R-1'), { key: 'key-1' })]);

    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409]);
    expect(replies.find((reply) => reply.status === 409)?.body.error).toBe('idempotency_key_in_flight');
    expect(api.state.countByReference('R-1')).toBe(1);
  });

  it('ignores the header in key-less mode, so a retry creates a duplicate', async () => {
    api.configure({ idempotencyKeys: false });
    const first = await postInvoice(invoice('R-1'), { key: 'key-1' });
    const second = await postInvoice(invoice('R-1'), { key: 'key-1' });

    expect([first.body.id, second.body.id]).toEqual(['inv_000001', 'inv_000002']);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(api.state.countByReference('R-1')).toBe(2);
  });

  it('finds records by reference and by id', async () => {
    await postInvoice(invoice('R-1'));
    await postInvoice(invoice('R-2'));
    await postInvoice(invoice('R-1', { version: 2 }));

    const byReference = await call('GET', '/invoices?reference=R-1');
    const none = await call('GET', '/invoices?reference=R-9');
    const one = await call('GET', '/invoices/inv_000002');
    const missing = await call('GET', '/invoices/inv_999999');

    expect(byReference.status).toBe(200);
    expect(byReference.body.data).toMatchObject([
      { id: 'inv_000001', reference: 'R-1', version: 1 },
      { id: 'inv_000003', reference: 'R-1', version: 2 },
    ]);
    expect(none.body).toEqual({ data: [] });
    expect(one.body).toMatchObject({ id: 'inv_000002', reference: 'R-2' });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/json');
    expect(api.state.getRequests).toBe(4);
    expect(seen.map((entry) => [entry.method, entry.reference])).toEqual([
      ['POST', 'R-1'],
      ['POST', 'R-2'],
      ['POST', 'R-1'],
      ['GET', 'R-1'],
      ['GET', 'R-9'],
      ['GET', null],
      ['GET', null],
    ]);
  });

  it('updates a record in place: PUT replaces its body, PATCH merges fields, each one revision more', async () => {
    const created = await postInvoice(invoice('R-1'));
    expect(created.body).toMatchObject({ id: 'inv_000001', revision: 1 });
    const put = await call('PUT', '/invoices/inv_000001', { body: { reference: 'R-1', type: 'invoice', version: 2, total: '130.00' }, key: 'put-1' });
    expect(put.status).toBe(200);
    // Replaced: customer_id and currency are gone; id, reference and created_at stay.
    expect(put.body).toEqual({ id: 'inv_000001', reference: 'R-1', type: 'invoice', version: 2, total: '130.00', created_at: created.body.created_at, updated_at: put.body.updated_at, revision: 2 });
    const patch = await call('PATCH', '/invoices/inv_000001', { body: { total: '140.00' } });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ id: 'inv_000001', version: 2, total: '140.00', revision: 3 });
    expect(api.state.recordsByReference('R-1')).toEqual([patch.body]);
    expect(api.state.updateRequests).toBe(2);
    expect(seen.map((entry) => [entry.method, entry.reference, entry.idempotencyKey])).toEqual([
      ['POST', 'R-1', null],
      ['PUT', 'R-1', 'put-1'],
      ['PATCH', 'R-1', null],
    ]);
  });

  it('replays an update under its idempotency key without applying it again, and refuses what it cannot update', async () => {
    await postInvoice(invoice('R-1'));
    const body = { reference: 'R-1', type: 'invoice', version: 2 };
    const first = await call('PUT', '/invoices/inv_000001', { body, key: 'put-1' });
    const again = await call('PUT', '/invoices/inv_000001', { body, key: 'put-1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(api.state.record('inv_000001')).toMatchObject({ version: 2, revision: 2 });
    expect((await call('PUT', '/invoices/inv_000001', { body: { ...body, version: 3 }, key: 'put-1' })).status).toBe(422);
    expect((await call('PUT', '/invoices/inv_000009', { body, key: 'put-9' })).status).toBe(404);
    const other = await call('PUT', '/invoices/inv_000001', { body: { ...body, reference: 'R-2' } });
    expect(other.status).toBe(400);
    expect(other.body).toEqual({ error: 'validation_failed', details: [{ field: 'reference', message: 'must be the record\'s reference, "R-1"' }] });
    expect((await call('PATCH', '/invoices/inv_000001', { body: { type: 'receipt' } })).status).toBe(400);
    expect(api.state.record('inv_000001')).toMatchObject({ version: 2, revision: 2 });
  });

  it('applies a scripted fault to an update of one reference: applied, then answered 504', async () => {
    await postInvoice(invoice('R-1'));
    api.addFaults([{ kind: 'status-after-commit', status: 504, route: 'PUT /invoices/:id', reference: 'R-1' }]);
    const body = { reference: 'R-1', type: 'invoice', version: 2 };
    expect((await call('PUT', '/invoices/inv_000001', { body, key: 'put-1' })).status).toBe(504);
    expect(api.state.record('inv_000001')).toMatchObject({ version: 2, revision: 2 });
    const retried = await call('PUT', '/invoices/inv_000001', { body, key: 'put-1' });
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(api.state.record('inv_000001')).toMatchObject({ revision: 2 });
  });

  it('answers 503 twice without creating anything, then creates', async () => {
    api.addFaults([{ kind: 'status', status: 503, count: 2 }]);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) statuses.push((await postInvoice(invoice('R-1'), { key: 'key-1' })).status);

    expect(statuses).toEqual([503, 503, 201]);
    expect(api.state.postRequests).toBe(3);
    expect(api.state.countByReference('R-1')).toBe(1);
  });

  it('answers a scripted 429 with the Retry-After header', async () => {
    api.addFaults([{ kind: 'status', status: 429, retryAfterSeconds: 2, count: 1 }]);
    const limited = await postInvoice(invoice('R-1'));
    const next = await postInvoice(invoice('R-1'));

    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('2');
    expect(limited.body).toEqual({ error: 'too_many_requests' });
    expect(next.status).toBe(201);
    expect(api.state.countByReference('R-1')).toBe(1);
  });

  it('applies a 400 fault only to the given reference', async () => {
    const validation = { error: 'validation_failed', details: [{ field: 'customer_id', message: 'unknown customer' }] };
    api.addFaults([{ kind: 'status', status: 400, body: validation, count: 1, reference: 'R-BAD' }]);
    const other = await postInvoice(invoice('R-OK'));
    const rejected = await postInvoice(invoice('R-BAD'));
    const retried = await postInvoice(invoice('R-BAD'));

    expect(other.status).toBe(201);
    expect(rejected.status).toBe(400);
    expect(rejected.body).toEqual(validation);
    expect(retried.status).toBe(201);
    expect(api.state.stats().byReference).toEqual({ 'R-OK': 1, 'R-BAD': 1 });
  });

  it('resets the connection without creating anything', async () => {
    api.addFaults([{ kind: 'reset' }]);

    await expect(postInvoice(invoice('R-1'), { key: 'key-1' })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(api.state.countByReference('R-1')).toBe(0);
    const retry = await postInvoice(invoice('R-1'), { key: 'key-1' });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('resets the connection after committing the record', async () => {
    api.addFaults([{ kind: 'reset-after-commit' }]);

    await expect(postInvoice(invoice('R-1'), { key: 'key-1' })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(api.state.countByReference('R-1')).toBe(1);
    const retry = await postInvoice(invoice('R-1'), { key: 'key-1' });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe('inv_000001');
    expect(api.state.countByReference('R-1')).toBe(1);
  });

  it('hangs after commit until the client times out; a keyed retry replays the same id', async () => {
    api.addFaults([{ kind: 'hang-after-commit' }]);

    await expect(postInvoice(invoice('R-1'), { key: 'key-1', headersTimeout: 200 })).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(api.state.records()).toMatchObject([{ id: 'inv_000001', reference: 'R-1' }]);
    const retry = await postInvoice(invoice('R-1'), { key: 'key-1' });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe('inv_000001');
    expect(api.state.countByReference('R-1')).toBe(1);
  });

  it('answers a hang with ms once that time has passed', async () => {
    api.addFaults([{ kind: 'hang-after-commit', ms: 150 }]);
    const started = performance.now();
    const reply = await postInvoice(invoice('R-1'));

    // setTimeout may fire up to 1 ms early against performance.now(); the margin absorbs rounding only.
    expect(performance.now() - started).toBeGreaterThanOrEqual(149);
    expect(reply.status).toBe(201);
    expect(reply.body.id).toBe('inv_000001');
  });

  it('answers a gateway status after committing the record; a keyed retry replays the record', async () => {
    api.addFaults([{ kind: 'status-after-commit', status: 504 }]);

    const gateway = await postInvoice(invoice('R-1'), { key: 'key-1' });
    expect(gateway.status).toBe(504);
    expect(gateway.body).toEqual({ error: 'gateway_timeout' });
    expect(api.state.records()).toMatchObject([{ id: 'inv_000001', reference: 'R-1' }]);
    const retry = await postInvoice(invoice('R-1'), { key: 'key-1' });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe('inv_000001');
    expect(api.state.countByReference('R-1')).toBe(1);
  });

  it('commits a late-commit request only after its wait, when the client has given up', async () => {
    api.addFaults([{ kind: 'late-commit', ms: 1500 }]);

    await expect(postInvoice(invoice('R-1'), { headersTimeout: 100 })).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(api.state.countByReference('R-1')).toBe(0);
    await expect.poll(() => api.state.countByReference('R-1')).toBe(1);
  });

  it('applies the fixed latency to every API request', async () => {
    api.configure({ latencyMs: 120 });
    for (const send of [() => postInvoice(invoice('R-1')), () => call('GET', '/invoices?reference=R-1')]) {
      const started = performance.now();
      const reply = await send();
      expect(reply.status).toBeLessThan(300);
      expect(performance.now() - started).toBeGreaterThanOrEqual(119);
    }
  });

  it('limits requests per second with a 429 and Retry-After: 1', async () => {
    api.configure({ maxRequestsPerSecond: 2 });
    const replies: Reply[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) replies.push(await postInvoice(invoice(`R-${attempt}`)));

    expect(replies.map((reply) => reply.status)).toEqual([201, 201, 429]);
    expect(replies[2].headers['retry-after']).toBe('1');
    expect(api.state.records()).toHaveLength(2);
  });

  it('serves the admin endpoints', async () => {
    expect(await call('GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok' } });

    const configured = await call('POST', '/_admin/faults', {
      body: { idempotencyKeys: false, faults: [{ kind: 'status', status: 503, count: 1 }] },
    });
    expect(configured.status).toBe(200);
    expect(configured.body).toEqual({
      settings: { latencyMs: 0, idempotencyKeys: false, maxRequestsPerSecond: 0 },
      faults: [{ kind: 'status', status: 503, count: 1 }],
    });

    expect((await postInvoice(invoice('R-1'), { key: 'key-1' })).status).toBe(503);
    await postInvoice(invoice('R-1'), { key: 'key-1' });
    await postInvoice(invoice('R-1'), { key: 'key-1' });
    await call('GET', '/invoices?reference=R-1');

    const stats = await call('GET', '/_admin/stats');
    expect(stats.body).toMatchObject({ records: 2, postRequests: 3, getRequests: 1, byReference: { 'R-1': 2 } });
    expect(stats.body.requests).toMatchObject([
      { method: 'POST', path: '/invoices', reference: 'R-1', idempotencyKey: 'key-1' },
      { method: 'POST', path: '/invoices', reference: 'R-1', idempotencyKey: 'key-1' },
      { method: 'POST', path: '/invoices', reference: 'R-1', idempotencyKey: 'key-1' },
      { method: 'GET', path: '/invoices', reference: 'R-1', idempotencyKey: null },
    ]);
    expect((await call('GET', '/_admin/records')).body.data).toMatchObject([{ id: 'inv_000001' }, { id: 'inv_000002' }]);

    const invalid = await call('POST', '/_admin/faults', { body: { faults: [{ kind: 'explode' }] } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe('validation_failed');

    expect((await call('POST', '/_admin/reset')).body).toEqual({ ok: true });
    expect((await call('GET', '/_admin/stats')).body).toEqual({ records: 0, postRequests: 0, updateRequests: 0, getRequests: 0, byReference: {}, requests: [] });
    expect((await postInvoice(invoice('R-2'))).body.id).toBe('inv_000001');
  });

  it('answers a bad POST /_admin/faults body with a 400 naming each bad or unknown field, and changes nothing', async () => {
    const bad = await call('POST', '/_admin/faults', {
      body: { latencyMs: -1, latencyMS: 5, faults: [{ kind: 'status' }, { kind: 'reset', route: 'GET /x' }, { kind: 'explode' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: 'validation_failed',
      details: [
        { field: 'latencyMs', message: 'Too small: expected number to be >=0' },
        { field: 'faults[0].status', message: 'Invalid input: expected number, received undefined' },
        { field: 'faults[1].route', message: 'Invalid option: expected one of "POST /invoices"|"PUT /invoices/:id"|"GET /products"' },
        { field: 'faults[2].kind', message: "Invalid discriminator value. Expected 'status' | 'reset' | 'reset-after-commit' | 'hang-after-commit' | 'status-after-commit' | 'late-commit'" },
        { field: 'latencyMS', message: 'is not a known field' },
      ],
    });
    expect((await call('POST', '/_admin/faults', { body: [] })).body).toEqual({
      error: 'validation_failed',
      details: [{ field: '(body)', message: 'Invalid input: expected object, received array' }],
    });

    expect((await call('POST', '/_admin/faults', { body: {} })).body).toEqual({
      settings: { latencyMs: 0, idempotencyKeys: true, maxRequestsPerSecond: 0 },
      faults: [],
    });
  });

  it('reset() clears records, keys, counts and faults', async () => {
    await postInvoice(invoice('R-1'), { key: 'key-1' });
    api.addFaults([{ kind: 'status', status: 503 }]);
    api.reset();

    expect(api.state.stats()).toEqual({ records: 0, postRequests: 0, updateRequests: 0, getRequests: 0, byReference: {}, requests: [] });
    const again = await postInvoice(invoice('R-1'), { key: 'key-1' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  it('close() resolves while a request hangs, and the client sees the socket close', async () => {
    api.addFaults([{ kind: 'hang-after-commit' }]);
    const hung = postInvoice(invoice('R-1'));
    await expect.poll(() => api.state.countByReference('R-1')).toBe(1);

    await api.close();
    await expect(hung).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  });
});
