import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsageError } from '../../src/errors/usage-error.ts';
import type { HttpJsonPaging } from '../../src/source/http-json-paging.ts';
import { readHttpJsonRows } from '../../src/source/read-http-json-rows.ts';
import type { QuarantinedRow } from '../../src/source/quarantined-row.ts';

// A real loopback server that acts as json-server does when a path leaves out `_page`: it serves
// the first `_limit` of 406 items and no Link header, and no next cursor either.
const TOTAL = 406;
const ITEMS = Array.from({ length: TOTAL }, (_, i) => ({ id: i + 1 }));
const Row = z.object({ id: z.number().int() });

let server: Server;
let base: string;
let requests: string[];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url!);
    const url = new URL(req.url!, 'http://x');
    const limit = Number(url.searchParams.get('_limit') ?? url.searchParams.get('limit') ?? TOTAL);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ data: ITEMS.slice(0, limit), next_cursor: null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function read(path: string, paging: HttpJsonPaging, singleFullPage?: 'fail' | 'accept', ids: number[] = []): Promise<number[]> {
  requests = [];
  const quarantined: QuarantinedRow[] = [];
  const spec = { paging, items: (body: unknown) => (body as { data: unknown[] }).data, row: Row, ...(singleFullPage ? { singleFullPage } : {}) };
  for await (const row of readHttpJsonRows(`${base}${path}`, spec, async (q) => void quarantined.push(q))) ids.push(row.value.id);
  expect(quarantined).toEqual([]);
  return ids;
}

describe('an HTTP source whose first page is full and leads nowhere', () => {
  it('fails (exit 2) for link-header paging with no next link, naming the URL, the count and the fix; no item is handed on', async () => {
    const paging: HttpJsonPaging = { style: 'link-header', perPageParam: '_limit', perPage: 50 };
    const rows: number[] = [];
    const error = await read('/products', paging, undefined, rows).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toBe(
      `${base}/products?_limit=50: the first page holds 50 items, as many as the page size asked for (50), and gives no next link (Link: rel="next"): ` +
        'the rest of the source would be left unread. Check that the path asks the API for paging (a json-server path needs its page parameter for Link headers); ' +
        "if the source really ends after one full page, declare singleFullPage: 'accept'",
    );
    expect(rows).toEqual([]);
    expect(requests).toEqual(['/products?_limit=50']);
  });

  it('fails for cursor paging whose first full page has no next cursor', async () => {
    const paging: HttpJsonPaging = { style: 'cursor', cursorField: 'next_cursor', cursorParam: 'cursor', limitParam: 'limit', limit: 100 };
    await expect(read('/products', paging)).rejects.toThrow(`${base}/products?limit=100: the first page holds 100 items, as many as the page size asked for (100), and gives no next cursor in "next_cursor"`);
  });

  it("loads the one full page where the pipeline declares singleFullPage: 'accept'", async () => {
    const ids = await read('/products', { style: 'link-header', perPageParam: '_limit', perPage: 50 }, 'accept');
    expect(ids).toEqual(ITEMS.slice(0, 50).map((item) => item.id));
  });

  it('loads a first page that is not full, and a source with no declared page size, as before', async () => {
    expect(await read('/products?_limit=30', { style: 'link-header' })).toHaveLength(30);
    expect(await read('/products', { style: 'cursor', cursorField: 'next_cursor', cursorParam: 'cursor', limitParam: 'limit', limit: 500 })).toHaveLength(TOTAL);
  });
});
