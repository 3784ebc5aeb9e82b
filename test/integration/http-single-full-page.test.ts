import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsageError } from '../../src/errors/usage-error.ts';
import type { HttpJsonPaging } from '../../src/source/http-json/http-json-paging.ts';
import { PipelineError } from '../../src/errors/pipeline-error.ts';
import { readHttpJsonRows, type HttpJsonReadSpec } from '../../src/source/http-json/read-http-json-rows.ts';
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

// A loopback API with working Link paging and an incremental parameter, as json-server serves
// `?_page&_limit`: ten products changed one minute apart, answered in `updated_at` order from
// `updated_since` (inclusive), with `rel="next"` only while more items follow.
const CHANGES = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, updated_at: `2026-12-01T10:${String(i).padStart(2, '0')}:00.000Z` }));
const Change = z.object({ id: z.number().int(), updated_at: z.string() });

describe('an incremental Link-header source whose changes since the mark fill exactly one page', () => {
  let api: Server;
  let apiBase: string;
  let asked: string[];
  /** `pagingWorks: false` serves the first `_limit` items and no Link header, whatever `_page` says. */
  let pagingWorks = true;

  beforeAll(async () => {
    api = createServer((req, res) => {
      asked.push(req.url!);
      const url = new URL(req.url!, 'http://x');
      const since = url.searchParams.get('updated_since');
      const limit = Number(url.searchParams.get('_limit'));
      const page = pagingWorks ? Number(url.searchParams.get('_page') ?? 1) : 1;
      const changed = CHANGES.filter((c) => since === null || c.updated_at >= since);
      if (pagingWorks && page * limit < changed.length) {
        const next = new URL(req.url!, 'http://x');
        next.searchParams.set('_page', String(page + 1));
        res.setHeader('link', `<${next.pathname}${next.search}>; rel="next"`);
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(changed.slice((page - 1) * limit, page * limit)));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => api.close(() => resolve())));

  const spec: HttpJsonReadSpec<z.output<typeof Change>> = {
    paging: { style: 'link-header', perPageParam: '_limit', perPage: 5 },
    items: (body) => body as unknown[],
    row: Change,
    incremental: { param: 'updated_since', cursor: (change) => change.updated_at, type: 'instant' },
  };
  const readSince = async (since: string): Promise<number[]> => {
    asked = [];
    const ids: number[] = [];
    for await (const row of readHttpJsonRows(`${apiBase}/changes?updated_since=${encodeURIComponent(since)}`, spec, async () => {})) ids.push(row.value.id);
    return ids;
  };

  it('asks for what changed since the page\'s greatest cursor, finds nothing newer, and loads the page', async () => {
    pagingWorks = true;
    // Since 10:05: items 6..10, exactly one page of 5, and no next link.
    expect(await readSince('2026-12-01T10:05:00.000Z')).toEqual([6, 7, 8, 9, 10]);
    expect(asked.map(decodeURIComponent)).toEqual([
      '/changes?updated_since=2026-12-01T10:05:00.000Z&_limit=5',
      '/changes?updated_since=2026-12-01T10:09:00.000Z&_limit=5',
    ]);
    // Two pages' worth follows the next link as before, with no extra request.
    expect(await readSince('2026-12-01T10:00:00.000Z')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(asked).toHaveLength(2);
  });

  it('still fails (exit 2) where paging does not work: the confirming request answers items past the page', async () => {
    pagingWorks = false;
    const error = await readSince('2026-12-01T10:00:00.000Z').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('the first page holds 5 items, as many as the page size asked for (5), and gives no next link');
    expect(asked.map(decodeURIComponent)).toEqual([
      '/changes?updated_since=2026-12-01T10:00:00.000Z&_limit=5',
      '/changes?updated_since=2026-12-01T10:04:00.000Z&_limit=5',
    ]);
  });
});

describe('an HTTP source field that no item of a read has', () => {
  it('fails (exit 2) naming the field and the fields the items have; a field absent from some items only is read as null', async () => {
    const partial = { paging: { style: 'link-header' as const }, items: (body: unknown) => (body as { data: unknown[] }).data, row: z.object({ id: z.number().int() }) };
    requests = [];
    const error = await (async () => {
      for await (const _ of readHttpJsonRows(`${base}/products?_limit=3`, { ...partial, expectFields: ['id', 'HorsePower'] }, async () => {})) void _;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).exitCode).toBe(2);
    expect((error as Error).message).toBe(
      `${base}/products?_limit=3: no item of the 3 read has the field "HorsePower", which the pipeline reads (a typo in its fields or columns, or a field the API renamed); ` +
        'the items have: id. A field absent from some items only is read as null',
    );
    const ids: number[] = [];
    for await (const row of readHttpJsonRows(`${base}/products?_limit=3`, { ...partial, expectFields: ['id'] }, async () => {})) ids.push(row.value.id);
    expect(ids).toEqual([1, 2, 3]);
  });
});
