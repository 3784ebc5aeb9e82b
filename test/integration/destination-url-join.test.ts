import { createServer, request as forward, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUpExampleProject, type ExampleProject } from '../helpers/example-project.ts';
import { DESTINATION } from '../helpers/sandbox.ts';
import { runCli } from '../helpers/run-cli.ts';

// Issue 28 §4: a destination URL as people write it (a path prefix, a query with a key, an encoded
// character) is joined with each request's path by WHATWG URL rules, and its query is kept on every
// request. A loopback gateway records every URL it is called on, then forwards to the sandbox with
// its own prefix and query taken off, as an API gateway in front of the real API would.
// One dialect: the subject is the HTTP request's URL, which no database takes part in.

const PREFIX = '/tenant-a/v2';
const QUERY = 'api_key=K%2B1&region=eu';

interface Gateway {
  readonly server: Server;
  readonly url: string;
  readonly seen: string[];
}

async function startGateway(upstream: string): Promise<Gateway> {
  const seen: string[] = [];
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    seen.push(`${req.method} ${url}`);
    const parsed = new URL(url, 'http://gateway');
    if (!parsed.pathname.startsWith(`${PREFIX}/`) || parsed.searchParams.get('api_key') !== 'K+1' || parsed.searchParams.get('region') !== 'eu') {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such route at the gateway"}');
      return;
    }
    parsed.searchParams.delete('api_key');
    parsed.searchParams.delete('region');
    const upstreamPath = `${parsed.pathname.slice(PREFIX.length)}${parsed.search}`;
    const proxied = forward({ host: target.hostname, port: target.port, method: req.method, path: upstreamPath, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

describe('a destination base URL with a path prefix and a query', () => {
  let project: ExampleProject;
  let gateway: Gateway;

  beforeAll(async () => {
    project = await setUpExampleProject('sqlite', 'url-join');
    gateway = await startGateway(project.sandbox.url);
  });
  afterAll(async () => {
    await new Promise((resolve) => gateway.server.close(resolve));
    await project.close();
  });

  it.each([
    { tail: `${PREFIX}/?${QUERY}`, date: '2011-03-27', invoices: 46 },
    { tail: `${PREFIX}?${QUERY}`, date: '2011-12-09', invoices: 49 },
  ])('posts every invoice to the prefixed path with the base query kept (base …$tail)', async ({ tail, date, invoices }) => {
    gateway.seen.length = 0;
    const before = project.sandbox.state.records().length;
    const env = { ...project.env, IDEM_DESTINATIONS: JSON.stringify({ [DESTINATION]: { url: `${gateway.url}${tail}` } }) };
    const result = await runCli(['run', 'online-retail-invoices', '--date', date], env);
    expect(result.code, result.stderr).toBe(0);
    expect(gateway.seen.filter((line) => line.startsWith('POST '))).toHaveLength(invoices);
    for (const line of gateway.seen) expect(line).toMatch(new RegExp(`^[A-Z]+ ${PREFIX}/invoices(/[^/?]+)?\\?api_key=K%2B1&region=eu$`));
    expect(project.sandbox.state.records().length - before).toBe(invoices);
  });

  it('refuses a base URL with a fragment at check and at run, with exit 2', async () => {
    const env = { ...project.env, IDEM_DESTINATIONS: JSON.stringify({ [DESTINATION]: { url: `${gateway.url}${PREFIX}#section` } }) };
    const checked = await runCli(['check', 'online-retail-invoices'], env);
    expect(checked.code).toBe(2);
    expect(checked.stdout + checked.stderr).toMatch(/fragment \("#section"\)/);
    const run = await runCli(['run', 'online-retail-invoices', '--date', '2011-03-28'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/fragment/);
  });
});
