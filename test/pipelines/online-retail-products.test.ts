import { http, HttpResponse } from 'msw';
import { startPipelineTest, type PipelineTest } from 'idem/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../helpers/run-cli.ts';

interface Product {
  stock_code: string;
  description: string;
  unit_price: string;
  updated_at: string;
}

/**
 * The catalogue API as msw handlers: `GET /products` in `updated_at` order, `updated_since`
 * (exclusive), cursor paging (`limit`, `cursor` = the next offset, `next_cursor` null at the end).
 */
function catalogueApi(products: Product[]) {
  return [
    http.get('/products', ({ request }) => {
      const url = new URL(request.url);
      const since = url.searchParams.get('updated_since');
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const offset = Number(url.searchParams.get('cursor') ?? 0);
      const matching = products
        .filter((p) => since === null || Date.parse(p.updated_at) > Date.parse(since))
        .sort((a, b) => a.updated_at.localeCompare(b.updated_at));
      const page = matching.slice(offset, offset + limit);
      return HttpResponse.json({ data: page, next_cursor: offset + limit < matching.length ? String(offset + limit) : null });
    }),
  ];
}

describe('online-retail-products, with the test kit', () => {
  let kit: PipelineTest | undefined;
  afterEach(async () => {
    await kit?.close();
    kit = undefined;
  });

  it('loads the catalogue, then reads only what changed since the last completed run', async () => {
    const products: Product[] = [
      { stock_code: '10002', description: 'INFLATABLE POLITICAL GLOBE', unit_price: '0.85', updated_at: '2011-04-18T11:56:00.000Z' },
      { stock_code: '10080', description: 'GROOVY CACTUS INFLATABLE', unit_price: '0.39', updated_at: '2011-11-21T17:04:00.000Z' },
      { stock_code: '10120', description: 'DOGGY RUBBER', unit_price: '0.21', updated_at: '2011-12-04T13:15:00.000Z' },
    ];
    kit = await startPipelineTest({ pipeline: 'online-retail-products', projectDir: PROJECT_DIR, databaseUrl: 'sqlite:', source: catalogueApi(products) });
    const first = await kit.run(['--date', '2011-12-09']);
    expect([first.exitCode, first.outcome], first.child.stderr).toEqual([0, 'completed']);
    expect(first.counts.upsert).toMatchObject({ inserted: 3, updated: 0 });
    expect((await kit.rows()).map((row) => [row.source_reference, row.description, String(row.unit_price)])).toEqual([
      ['10002', 'INFLATABLE POLITICAL GLOBE', '0.850'],
      ['10080', 'GROOVY CACTUS INFLATABLE', '0.390'],
      ['10120', 'DOGGY RUBBER', '0.210'],
    ]);
    expect(kit.sourceRequests().map((request) => request.path)).toEqual(['/products?style=cursor&sort=updated_at&limit=500']);

    // A price changes at the API: the next plain run of the same date asks only for what changed.
    products[1] = { ...products[1]!, unit_price: '0.45', updated_at: '2011-12-09T09:00:00.000Z' };
    const second = await kit.run(['--date', '2011-12-09']);
    expect([second.exitCode, second.outcome], second.child.stderr).toEqual([0, 'completed']);
    expect(second.counts.upsert).toMatchObject({ inserted: 0, updated: 1 });
    expect(kit.sourceRequests()[1]!.path).toBe(`/products?style=cursor&sort=updated_at&updated_since=${encodeURIComponent('2011-12-04T13:15:00.000Z')}&limit=500`);
    expect((await kit.rows()).find((row) => row.source_reference === '10080')?.unit_price).toBe('0.450');
  });
});
