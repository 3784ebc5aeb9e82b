import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyHttpFailure } from '../../src/http/classify-http-failure.ts';
import { createHttpAgent } from '../../src/http/create-http-agent.ts';
import { HttpRequestFailedError } from '../../src/http/http-request-failed-error.ts';
import { resolveHttpSettings } from '../../src/http/http-settings.ts';
import type { HttpSettingsInput } from '../../src/http/http-settings.ts';
import { HttpStatusError } from '../../src/http/http-status-error.ts';
import { requestJson } from '../../src/http/request-json.ts';
import { sendWithRetry } from '../../src/http/send-with-retry.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const servers: Server[] = [];
const agents: Agent[] = [];

afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.destroy()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A real server on 127.0.0.1 that reads each request body, then calls `handler`. */
async function startServer(handler: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handler(req, res, body));
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function agent(settings: HttpSettingsInput = {}): Agent {
  const created = createHttpAgent(resolveHttpSettings(settings));
  agents.push(created);
  return created;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected the request to fail'),
    (error: unknown) => error,
  );
}

describe('requestJson over a real socket', () => {
  it('sends JSON and parses the JSON answer', async () => {
    const { url } = await startServer((req, res, body) => {
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' });
      const { 'content-type': contentType, accept, 'idempotency-key': key } = req.headers;
      res.end(JSON.stringify({ method: req.method, contentType, accept, key, received: JSON.parse(body) }));
    });
    const response = await requestJson(agent(), { method: 'POST', url: `${url}/orders`, headers: { 'Idempotency-Key': 'k-42' }, body: { id: 42, total: '9.90' } });
    expect(response.status).toBe(201);
    expect(response.headers['x-request-id']).toBe('r-1');
    expect(response.body).toEqual({ method: 'POST', contentType: 'application/json', accept: 'application/json', key: 'k-42', received: { id: 42, total: '9.90' } });
  });

  it('withholds a request whose beforeWrite throws at write time, after its wait for a connection: nothing reaches the server', async () => {
    const seen: string[] = [];
    let releaseFirst = (): void => undefined;
    const { url } = await startServer((req, res) => {
      seen.push(req.url!);
      if (req.url === '/first') releaseFirst = () => res.end('{}');
      else res.end('{}');
    });
    const http = agent({ concurrency: 1 });
    let live = true;
    const checks: string[] = [];
    const first = requestJson(http, { method: 'POST', url: `${url}/first`, body: {}, beforeWrite: () => checks.push('first') });
    await expect.poll(() => seen).toEqual(['/first']);
    // The one connection is busy: the second request waits for it, and its right to send lapses meanwhile.
    const lost = new Error('claim lost while waiting');
    const second = rejection(requestJson(http, { method: 'POST', url: `${url}/second`, body: {}, beforeWrite: () => {
      checks.push('second');
      if (!live) throw lost;
    } }));
    live = false;
    releaseFirst();
    await first;
    expect(await second).toBe(lost);
    // The third goes out on the same agent as usual.
    await requestJson(http, { method: 'GET', url: `${url}/third` });
    expect(seen).toEqual(['/first', '/third']);
    expect(checks).toEqual(['first', 'second']);
  });

  it('gives a non-JSON body as text and an empty body as undefined', async () => {
    const { url } = await startServer((req, res) => {
      if (req.url === '/text') res.writeHead(200, { 'content-type': 'text/plain' }).end('accepted');
      else res.writeHead(204).end();
    });
    expect((await requestJson(agent(), { method: 'GET', url: `${url}/text` })).body).toBe('accepted');
    expect((await requestJson(agent(), { method: 'PUT', url: `${url}/empty`, body: {} })).body).toBeUndefined();
  });

  it('throws HttpStatusError with the body and the Retry-After on 5xx', async () => {
    const { url } = await startServer((_req, res) => res.writeHead(503, { 'retry-after': '7' }).end('maintenance'));
    const error = await rejection(requestJson(agent(), { method: 'PUT', url: `${url}/orders/1`, body: { id: 1 } }));
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 503, body: 'maintenance', retryAfterMs: 7000, method: 'PUT', url: `${url}/orders/1` });
    expect(classifyHttpFailure(error)).toMatchObject({ kind: 'transient', outcome: 'rejected', status: 503 });
  });

  it('throws HttpStatusError with the body on 500', async () => {
    const { url } = await startServer((_req, res) => res.writeHead(500).end('boom'));
    const error = await rejection(requestJson(agent(), { method: 'GET', url }));
    expect(error).toMatchObject({ name: 'HttpStatusError', status: 500, body: 'boom', retryAfterMs: undefined });
  });

  it('reads error bodies to the end, so one keep-alive socket serves every request', async () => {
    let connections = 0;
    const { url, server } = await startServer((_req, res) => res.writeHead(500).end('x'.repeat(100_000)));
    server.on('connection', () => (connections += 1));
    const shared = agent({ concurrency: 1 });
    for (let i = 0; i < 3; i += 1) {
      expect(await rejection(requestJson(shared, { method: 'GET', url }))).toMatchObject({ status: 500, body: 'x'.repeat(2048) });
    }
    expect(connections).toBe(1);
  });

  it('reports a headers timeout as an unknown outcome', async () => {
    const { url } = await startServer(() => {}); // reads the request, never answers
    const error = await rejection(requestJson(agent({ headersTimeoutMs: 200 }), { method: 'POST', url, body: { id: 1 } }));
    expect(classifyHttpFailure(error)).toEqual({ kind: 'transient', outcome: 'unknown', reason: 'headers timeout after the request was sent (outcome unknown)' });
  });

  it('reports a refused connection as not sent', async () => {
    const { url, server } = await startServer(() => {});
    server.close();
    await once(server, 'close');
    const error = await rejection(requestJson(agent(), { method: 'POST', url, body: { id: 1 } }));
    expect(classifyHttpFailure(error)).toEqual({ kind: 'transient', outcome: 'not-sent', reason: 'connection refused (request not sent)' });
  });

  it.each([
    ['closes', (socket: IncomingMessage['socket']) => socket.destroy(), 'connection closed by the other side (outcome unknown)'],
    ['resets', (socket: IncomingMessage['socket']) => socket.resetAndDestroy(), 'connection reset (outcome unknown)'],
  ])('reports an unknown outcome when the server %s the connection after reading the request', async (_, drop, reason) => {
    const { url } = await startServer((req) => drop(req.socket));
    const error = await rejection(requestJson(agent(), { method: 'POST', url, body: { id: 1 } }));
    expect(classifyHttpFailure(error)).toEqual({ kind: 'transient', outcome: 'unknown', reason });
  });

  it('gets through a 503 with sendWithRetry', async () => {
    let calls = 0;
    const { url } = await startServer((_req, res) => {
      calls += 1;
      if (calls === 1) res.writeHead(503, { 'retry-after': '0' }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    const settings = resolveHttpSettings();
    const shared = agent();
    const sleeps: number[] = [];
    const response = await sendWithRetry(() => requestJson(shared, { method: 'PUT', url, body: { id: 1 } }), {
      settings: settings.retry,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0,
    });
    expect(response.body).toEqual({ ok: true });
    expect(calls).toBe(2);
    expect(sleeps).toEqual([100]);
  });

  it('ends with HttpRequestFailedError after the last attempt', async () => {
    const { url } = await startServer((_req, res) => res.writeHead(502).end('bad gateway'));
    const shared = agent();
    const error = await rejection(
      sendWithRetry(() => requestJson(shared, { method: 'GET', url }), {
        settings: resolveHttpSettings({ retry: { maxAttempts: 2 } }).retry,
        sleep: async () => {},
      }),
    );
    expect(error).toBeInstanceOf(HttpRequestFailedError);
    expect(error).toMatchObject({ attempts: 2, failure: { kind: 'transient', status: 502 }, cause: { body: 'bad gateway' } });
  });
});
