import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Database } from '../../src/db/database.ts';
import { createMigrationContext } from '../../src/migration/create-migration-context.ts';
import { column } from '../../src/column/column-type.ts';
import { definePipeline } from '../../src/pipeline/define-pipeline.ts';
import type { DestinationDefinition, DestinationLookup } from '../../src/destination/destination-definition.ts';
import { runPipeline } from '../../src/runner/run-pipeline.ts';
import { dateRunKey } from '../../src/runs/run-key.ts';
import { csvSource } from '../../src/source/csv/csv-source.ts';
import { describeOneDialect, type TestDatabase } from '../helpers/dialects.ts';
import { writeTempSource } from '../helpers/fixtures.ts';
import { openTestDatabase } from '../helpers/test-db.ts';
import { createMigratedTestDatabase } from '../helpers/migrated-test-database.ts';

/** One order an {@link OrdersApi} holds. */
interface RemoteOrder {
  readonly number: string;
  readonly ref: string;
  revision: string;
}

/**
 * A loopback orders API whose answers are not the sandbox's shape: `POST /<book>/orders` answers
 * `{ order: { number } }`, and `GET /<book>/orders?ref=R` a bare array of every order with that
 * reference. Each book (a path prefix) holds its own orders, so two destinations can share it.
 */
interface OrdersApi {
  readonly url: string;
  readonly books: Map<string, Map<string, RemoteOrder>>;
  readonly creates: () => number;
  close(): Promise<void>;
}

async function startOrdersApi(): Promise<OrdersApi> {
  const books = new Map<string, Map<string, RemoteOrder>>();
  let created = 0;
  const answer = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url!, 'http://loopback');
    const [, book, resource] = url.pathname.split('/');
    if (resource !== 'orders' || !book) return answer(res, 404, { error: 'not found' });
    const orders = books.get(book) ?? books.set(book, new Map()).get(book)!;
    if (req.method === 'GET') return answer(res, 200, [...orders.values()].filter((o) => o.ref === url.searchParams.get('ref')));
    let text = '';
    for await (const chunk of req) text += String(chunk);
    const { ref, revision } = JSON.parse(text) as { ref: string; revision: string };
    const number = `o-${++created}`;
    orders.set(number, { number, ref, revision });
    answer(res, 201, { order: { number } });
  };
  const server = createServer((req, res) => void handle(req, res).catch((error: Error) => answer(res, 500, { error: error.message })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    books,
    creates: () => created,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

const lookup: DestinationLookup = {
  path: (row) => `/orders?ref=${encodeURIComponent(row.sourceReference)}`,
  find: (body, row) => (body as RemoteOrder[]).find((o) => o.revision === row.version)?.number,
  exists: (body) => (body as RemoteOrder[]).length > 0,
};
const { exists: _exists, ...lookupWithoutExists } = lookup;
const destination = (name: string, withLookup: DestinationLookup): DestinationDefinition => ({
  name,
  strategy: 'idempotency-key',
  request: (row) => ({ method: 'POST', path: '/orders', body: { ref: row.sourceReference, revision: row.version, qty: row.values.qty } }),
  remoteReference: (body) => (body as { order: { number: string } }).order.number,
  lookup: withLookup,
});
const COLUMNS = { qty: column.decimal(10, 2) };
const pipeline = definePipeline({
  name: 'test-orders',
  sourceSystem: 'test',
  timeZone: 'UTC',
  source: csvSource({ directory: '.', fileForDate: (d) => `${d}.csv`, header: ['ref', 'qty'], row: z.object({ ref: z.string(), qty: z.string() }) }),
  async *toRecords(rows) {
    for await (const row of rows) yield { sourceReference: row.value.ref, line: row.line, values: { qty: row.value.qty } };
  },
  tables: { staging: 'stg_test_orders', target: 'test_orders' },
  columns: COLUMNS,
  destinations: [destination('orders', lookup), destination('orders-without-exists', lookupWithoutExists)],
});

describeOneDialect('--force-reconcile asks the destination definition, not the answer shape', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let api: OrdersApi;

  beforeEach(async (context) => {
    testDb = await createMigratedTestDatabase(dialect, context.task.name);
    api = await startOrdersApi();
    db = await openTestDatabase(testDb.url);
    await createMigrationContext(db.knex, db.adapter).createPipelineTables({ ...pipeline.tables, columns: COLUMNS });
  });

  afterEach(async () => {
    await db.close();
    await api.close();
    await testDb.drop();
  });

  it('reports a record held only in another version as different (with lookup.exists) and sends both repairs', async () => {
    const dir = writeTempSource('2026-01-05.csv', 'ref,qty\nA,1\nB,2\nC,3\n');
    const destinations = { orders: { url: `${api.url}/book-1` }, 'orders-without-exists': { url: `${api.url}/book-2` } };
    const config = { ...loadConfig({ IDEM_DESTINATIONS: JSON.stringify(destinations) }, dir), databaseUrl: testDb.url, sourceDir: dir };
    const ctx = { config, db, logger: pino({ level: 'silent' }) };
    const request = { pipeline, runKey: dateRunKey('2026-01-05'), triggeredBy: 'test' };
    expect((await runPipeline(ctx, request)).outcome).toBe('completed');
    expect(api.creates()).toBe(6);

    // Each book loses B, and holds C only in a revision idem never posted.
    for (const orders of api.books.values()) {
      for (const order of [...orders.values()]) {
        if (order.ref === 'B') orders.delete(order.number);
        if (order.ref === 'C') order.revision = 'an-older-revision';
      }
    }
    const reconciled = await runPipeline(ctx, { ...request, forceReconcile: true });
    expect(reconciled.outcome).toBe('completed');
    expect(reconciled.counts.reconcile).toEqual({
      orders: { checked: 3, present: 1, missing: 1, different: 1, duplicated: 0 },
      // Without lookup.exists idem cannot tell: every record not found counts as missing.
      'orders-without-exists': { checked: 3, present: 1, missing: 2, different: 0, duplicated: 0 },
    });
    // B and C were sent again to each destination, under repair keys; A was not.
    expect(api.creates()).toBe(10);
    for (const orders of api.books.values()) {
      expect([...orders.values()].map((o) => o.ref).sort()).toEqual(['A', 'B', 'C', 'C']);
    }
    const repaired = await db.knex('post_ledger').where('idempotency_key', 'like', '%#repair-1').orderBy(['destination', 'source_reference']);
    expect(repaired.map((r: any) => [r.destination, r.source_reference, r.status])).toEqual([
      ['orders', 'B', 'posted'], ['orders', 'C', 'posted'], ['orders-without-exists', 'B', 'posted'], ['orders-without-exists', 'C', 'posted'],
    ]);
  });
});
