import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runIdemChild } from '../../src/child-process/start-idem-child.ts';
import { CARS_MIGRATION, createCarsProject, type CarsProject } from '../helpers/cars-project.ts';
import { startPipelineTest } from '../../src/testing/index.ts';

// A project of its own whose destination is not the sandbox's POST /invoices (a json-server-like
// cars API). Without a description `idem prove`'s default stand-in does not serve POST /cars, and
// the failed check must say what it answered. Described as msw handlers in stand-ins/cars.ts, the
// proof runs against them, and the test kit uses the same description.

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
    strategy: 'check-before-create',
    request: (row) => ({
      method: row.remoteReference ? 'PUT' : 'POST',
      path: row.remoteReference ? '/cars/' + row.remoteReference : '/cars',
      body: { name: row.sourceReference, hp: row.values.hp, version: row.version },
    }),
    remoteReference: (body) => String((body as { id: unknown }).id),
    lookup: {
      path: (row) => '/cars?name=' + encodeURIComponent(row.sourceReference),
      find: (body, row) => {
        const current = (body as { id: number; version: string }[]).at(-1);
        return current?.version === row.version ? String(current.id) : undefined;
      },
      exists: (body) => (body as unknown[]).length > 0,
      references: (body) => (body as { id: number }[]).map((car) => String(car.id)),
    },
    settleDelayMs: 100,
    // Short timeouts: a takeover under check-before-create waits them out (see scaling.md).
    http: { connectTimeoutMs: 1000, headersTimeoutMs: 2000 },
  }],
});
`;

/**
 * The cars API as json-server answers it: POST creates with the next id, PUT /cars/:id replaces,
 * GET ?name= lists; and the bodies it takes, which idem prove checks every request() against.
 */
const STAND_INS = `import { http, HttpResponse } from 'msw';
import { z } from 'zod';

const Car = z.strictObject({ name: z.string().min(1), hp: z.number().int(), version: z.string() });
export const bodies = { 'cars-api': { create: Car, update: Car } };

export function destinations() {
  const cars: { id: number; name: string }[] = [];
  return {
    'cars-api': [
      http.post('/cars', async ({ request }) => {
        const car = { ...((await request.json()) as { name: string }), id: cars.length + 1 };
        cars.push(car);
        return HttpResponse.json(car, { status: 201 });
      }),
      http.put('/cars/:id', async ({ request, params }) => {
        const at = cars.findIndex((car) => String(car.id) === params.id);
        if (at === -1) return HttpResponse.json({ error: 'no such car' }, { status: 404 });
        cars[at] = { ...((await request.json()) as { name: string }), id: cars[at]!.id };
        return HttpResponse.json(cars[at]);
      }),
      http.get('/cars', ({ request }) => HttpResponse.json(cars.filter((car) => car.name === new URL(request.url).searchParams.get('name')))),
    ],
  };
}
`;

describe('idem prove on a destination that is not the sandbox', () => {
  let project: CarsProject | undefined;
  afterEach(() => project?.remove());

  /** A project of its own with the cars pipeline and (when asked) stand-ins/cars.ts. */
  function carsProject(described: boolean): CarsProject {
    project = createCarsProject('prove-cars', PIPELINE, described ? STAND_INS : undefined);
    // A takeover's own margin, short as the timeouts above: each kill check waits it out once.
    return { ...project, env: { ...project.env, IDEM_TAKEOVER_GRACE_MS: '500' } };
  }

  it('fails the clean run and says which answer the items got', async () => {
    const { dir, file, env } = carsProject(false);
    const result = await runIdemChild(['prove', 'cars', '--file', file, '--seed', '1'], env, { cwd: dir });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const line = result.stdout.split('\n').find((l) => l.includes('clean run'));
    expect(line, result.stdout).toMatch(/fail/);
    expect(line).toMatch(/exit 3: .*3 item\(s\) failed at cars-api: HTTP 404 \(e\.g\. reference [a-z0-9 ]+\): .*; cars-api stood in by idem's sandbox \(POST \/invoices\): describe the API in stand-ins\/cars\.ts$/);
  });

  it('proves the pipeline against the API described in stand-ins/cars.ts, which the test kit uses too', { timeout: 600_000 }, async () => {
    const { dir, file, env } = carsProject(true);
    // The clean runs, and the checks that meet the destination mid-post (every check is proved on
    // the sandbox's pipeline in test/faults/prove.test.ts).
    const only = ['kill after POST', 'paused', '504', 'update: kill as'].flatMap((c) => ['--only', c]);
    const result = await runIdemChild(['prove', 'cars', '--file', file, '--seed', '1', ...only], env, { cwd: dir });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^clean run +pass +rows 3, remote 3 once, requests 6$/m);
    expect(result.stdout).toMatch(/^request bodies +pass +bodies 6 \(create and update\), no undefined field, valid for stand-ins\/cars\.ts$/m);
    // The update path: a copy of the file with one value changed, run by --file: one PUT, no car created.
    expect(result.stdout).toMatch(
      /^update: one value changed, sent once +pass +first record, hp: "130" → "131", inserted 0, updated 1, rows changed 1 \(vega chevrolet chevelle malibu\), remote 3 once, updates chevrolet chevelle malibu ×1 once, requests 2, again: noop, requests 0$/m,
    );
    expect(result.stdout).toMatch(/^update: kill as the update reaches a destination, rerun +pass +.*, updates chevrolet chevelle malibu ×1 once$/m);
    expect(result.stdout).toMatch(/^kill after POST 1 of 3, rerun +pass +rows 3 = 3, remote 3 once, attempts 2, staging 0, lock free$/m);
    expect(result.stdout).toMatch(/\npassed: 13 checks\n$/);

    const kit = await startPipelineTest({ pipeline: 'cars', projectDir: dir, databaseUrl: 'sqlite:' });
    try {
      const run = await kit.run(['--file', file]);
      expect([run.exitCode, run.outcome], run.child.stderr).toEqual([0, 'completed']);
      // check-before-create: a look-up, then the create, for each car.
      expect(kit.requests().map((r) => `${r.method} ${r.path.split('?')[0]} ${r.status}`).sort()).toEqual([
        ...Array(3).fill('GET /cars 200'),
        ...Array(3).fill('POST /cars 201'),
      ].sort());
    } finally {
      await kit.close();
    }
  });

  it('fails the request bodies check on a field an update would send undefined, which the runs themselves never send', { timeout: 600_000 }, async () => {
    const { dir, file, env } = carsProject(true);
    // The create is right; the update (a changed car) reads a name the row does not have.
    const typo = PIPELINE.replace(
      'body: { name: row.sourceReference, hp: row.values.hp, version: row.version },',
      'body: { name: row.sourceReference, hp: row.remoteReference ? (row.values as Record<string, unknown>).horsepowr : row.values.hp, version: row.version },',
    );
    expect(typo).not.toBe(PIPELINE);
    writeFileSync(path.join(dir, 'pipelines', 'cars.ts'), typo);
    // The request bodies are checked with the clean runs: no crash check is needed.
    const result = await runIdemChild(['prove', 'cars', '--file', file, '--seed', '1', '--only', 'request bodies'], env, { cwd: dir });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^clean run +pass +rows 3, remote 3 once, requests 6$/m);
    const line = result.stdout.split('\n').find((l) => l.startsWith('request bodies'));
    // The read of a name that is no column is caught where it happens, naming it.
    const threw = (car: string) => `${car} (cars-api, update): request() threw row.values.horsepowr: the pipeline has no column "horsepowr" (its columns: hp)`;
    // Columns padded to the longest check name: compared with single gaps.
    expect(line?.replace(/ {2,}/g, '  '), result.stdout).toBe(
      `request bodies  fail  3 problem(s) in 6 bodies: ${['buick skylark 320', 'chevrolet chevelle malibu', 'plymouth satellite'].map(threw).join('; ')}`,
    );
  });

  it("fails the request bodies check on a body the stand-in's description refuses, naming the field", { timeout: 600_000 }, async () => {
    const { dir, file, env } = carsProject(true);
    // A typo in the update's body: the API's description has no "nmae", and misses "name".
    const typo = PIPELINE.replace(
      'body: { name: row.sourceReference, hp: row.values.hp, version: row.version },',
      "body: row.remoteReference ? { nmae: row.sourceReference, hp: row.values.hp, version: row.version } : { name: row.sourceReference, hp: row.values.hp, version: row.version },",
    );
    expect(typo).not.toBe(PIPELINE);
    writeFileSync(path.join(dir, 'pipelines', 'cars.ts'), typo);
    // The request bodies are checked with the clean runs: no crash check is needed.
    const result = await runIdemChild(['prove', 'cars', '--file', file, '--seed', '1', '--only', 'request bodies'], env, { cwd: dir });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const line = result.stdout.split('\n').find((l) => l.startsWith('request bodies'));
    expect(line, result.stdout).toMatch(/^request bodies +fail +6 problem\(s\) in 6 bodies: buick skylark 320 \(cars-api, update\): body\.name Invalid input: expected string, received undefined \(stand-ins\/cars\.ts, update\); buick skylark 320 \(cars-api, update\): body Unrecognized key: "nmae" \(stand-ins\/cars\.ts, update\); chevrolet chevelle malibu \(cars-api, update\): body\.name /);
  });

  it('proves an HTTP source pipeline against the source described in stand-ins/stations.ts, without IDEM_SOURCES', { timeout: 600_000 }, async () => {
    const { dir, env } = carsProject(false);
    writeFileSync(path.join(dir, 'pipelines', 'stations.ts'), `import { z } from 'zod';
import { column, definePipeline, httpJsonSource } from 'idem';

export const pipeline = definePipeline({
  name: 'stations',
  sourceSystem: 'noaa',
  timeZone: 'UTC',
  source: httpJsonSource({
    path: '/stations',
    paging: { style: 'link-header' },
    items: (body) => body as unknown[],
    row: z.object({ id: z.string().min(1), name: z.string().min(1) }),
    invalidRows: 'fail',
  }),
  async *toRecords(rows) {
    for await (const row of rows) yield { sourceReference: row.value.id, line: row.line, values: { name: row.value.name } };
  },
  tables: { staging: 'stg_stations', target: 'stations' },
  columns: { name: column.text() },
});
`);
    writeFileSync(path.join(dir, 'migrations', '20270101000100_create_stations.ts'), CARS_MIGRATION.replaceAll('cars', 'stations').replace('column.integer()', 'column.text()').replaceAll('hp:', 'name:'));
    writeFileSync(path.join(dir, 'stand-ins', 'stations.ts'), `import { http, HttpResponse } from 'msw';

export function source() {
  return [http.get('/stations', () => HttpResponse.json([{ id: 'KSEA', name: 'Seattle' }, { id: 'KPDX', name: 'Portland' }]))];
}
`);
    const result = await runIdemChild(['prove', 'stations', '--date', '2027-01-04', '--seed', '1', '--only', 'after-upsert'], env, { cwd: dir });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^clean run +pass +rows 2$/m);
    // The update path: the stand-in's handlers wrapped to serve the first station changed.
    expect(result.stdout).toMatch(/^update: one value changed, sent once +pass +first item, name: "Seattle" → "Seattle \(changed\)", inserted 0, updated 1, rows changed 1 \(noaa KSEA\), again: updated 0$/m);
    expect(result.stdout).toMatch(/^update: kill at after-upsert, rerun +pass +rows 2 = 2, attempts 2, staging 0, lock free$/m);

    const kit = await startPipelineTest({ pipeline: 'stations', projectDir: dir, databaseUrl: 'sqlite:' });
    try {
      const run = await kit.run(['--date', '2027-01-04']);
      expect([run.exitCode, run.outcome], run.child.stderr).toEqual([0, 'completed']);
      expect((await kit.rows()).map((row) => [row.source_reference, row.name])).toEqual([['KPDX', 'Portland'], ['KSEA', 'Seattle']]);
      expect(kit.sourceRequests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /stations 200']);
    } finally {
      await kit.close();
    }
  });
});
