import { afterEach, describe, expect, it } from 'vitest';
import { runIdemChild } from '../../src/child-process/start-idem-child.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { createCarsProject, type CarsProject } from '../helpers/cars-project.ts';
import { proveTable } from '../helpers/prove-table.ts';

// Issue 28 §7: `idem prove` missed what an independent harness found against json-server. A
// json-server-like cars API that ignores Idempotency-Key, described as such in
// stand-ins/cars.ts, under the idempotency-key strategy: the proof must say the strategy cannot
// hold there, and a create applied after the settle delay, with no way to see two records for a
// reference (no lookup.references), must fail as a silent duplicate, not pass.
const PROOF_TIMEOUT_MS = 600_000;

const PIPELINE = `import { z } from 'zod';
import { column, csvSource, definePipeline } from 'idem';

export const pipeline = definePipeline({
  name: 'cars',
  sourceSystem: 'vega',
  timeZone: 'UTC',
  source: csvSource({
    directory: 'data',
    fileForDate: (d) => d + '.csv',
    header: ['name', 'hp'],
    row: z.object({ name: z.string().min(1), hp: z.string().regex(/^\\d+$/) }),
    invalidRows: 'fail',
  }),
  async *toRecords(rows) {
    for await (const row of rows) yield { sourceReference: row.value.name, line: row.line, values: { hp: Number(row.value.hp) } };
  },
  tables: { staging: 'stg_cars', target: 'cars' },
  columns: { hp: column.integer() },
  destinations: [{
    name: 'cars-api',
    strategy: 'idempotency-key',
    request: (row) => ({ method: 'POST', path: '/cars', body: { name: row.sourceReference, hp: row.values.hp, version: row.version } }),
    remoteReference: (body) => String((body as { id: unknown }).id),
    lookup: {
      path: (row) => '/cars?name=' + encodeURIComponent(row.sourceReference),
      find: (body, row) => {
        const current = (body as { id: number; version: string }[]).at(-1);
        return current?.version === row.version ? String(current.id) : undefined;
      },
    },
  }],
});
`;

/** The cars API as json-server answers it, which knows nothing of idempotency keys, and says so. */
const STAND_INS = `import { http, HttpResponse } from 'msw';

export const honoursIdempotencyKeys = { 'cars-api': false };

export function destinations() {
  const cars: { id: number; name: string }[] = [];
  return {
    'cars-api': [
      http.post('/cars', async ({ request }) => {
        const car = { ...((await request.json()) as { name: string }), id: cars.length + 1 };
        cars.push(car);
        return HttpResponse.json(car, { status: 201 });
      }),
      http.get('/cars', ({ request }) => HttpResponse.json(cars.filter((car) => car.name === new URL(request.url).searchParams.get('name')))),
    ],
  };
}
`;

describe.skipIf(!DIALECTS.includes('sqlite'))('sqlite: idem prove against an API described without idempotency-key support', () => {
  let project: CarsProject | undefined;
  afterEach(() => project?.remove());

  it('says the idempotency-key strategy cannot hold there, and fails the late apply as a silent duplicate', { timeout: PROOF_TIMEOUT_MS }, async () => {
    project = createCarsProject('prove-keyless', PIPELINE, STAND_INS);
    const { dir, file, env } = project;

    const result = await runIdemChild(['prove', 'cars', '--file', file, '--seed', '1', '--only', 'idempotency keys', '--only', 'settle'], env, { cwd: dir });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const table = proveTable(result.stdout);
    expect(table.get('idempotency keys honoured by the API')).toEqual([
      'fail',
      'cars-api: described without idempotency-key support (stand-ins honoursIdempotencyKeys false), so the idempotency-key strategy cannot hold there: a retry or rerun creates the record again; use check-before-create or mark-before-send',
    ]);
    // The stand-in replayed no key: the resend after the timeout created the car again, and
    // nothing could see it (no lookup.references).
    const [late, lateCounts] = table.get('applied after the settle delay')!;
    expect(late).toBe('fail');
    expect(lateCounts).toMatch(/^applied 2000 ms late: exit 0, remote 4 ≠ 3, 1 duplicated \(.+ ×2\): created twice silently, --force-reconcile exit 0: run completed and found 0 duplicate\(s\) at the destination \(declare lookup\.references\)$/);
    // The clean run itself cannot see any of it.
    expect(table.get('clean run')?.[0]).toBe('pass');
  });
});
