import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { createTestDatabase, describeEachDialect, DIALECTS, PG_ADMIN_URL, type TestDatabase } from '../helpers/dialects.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';

const AIRPORTS = path.join(PROJECT_DIR, 'fixtures/samples/airports.csv');
const CARS = path.join(PROJECT_DIR, 'fixtures/samples/cars.json');

/** A project of one's own: empty pipelines/ and migrations/, and `idem` and `msw` resolvable from it (as `npm i ../idem` and `npm i -D msw` give). */
function makeProject(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-new-'));
  mkdirSync(path.join(dir, 'migrations')); // idem's own migrations come from the package
  mkdirSync(path.join(dir, 'pipelines'));
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(PROJECT_DIR, path.join(dir, 'node_modules', 'idem'), 'dir');
  symlinkSync(path.join(PROJECT_DIR, 'node_modules', 'msw'), path.join(dir, 'node_modules', 'msw'), 'dir'); // the JSON pipeline's test describes its source with msw
  return dir;
}

/** A loopback JSON API serving `body()` at `/cars` (one page, no Link header). */
async function startCarsApi(body: () => string): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url !== '/cars') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(body());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describeEachDialect('idem new: a pipeline from a sample, loaded, rerun as a no-op, and one changed value is one update', (dialect) => {
  let project: string;
  let testDb: TestDatabase;
  let db: Database;
  let env: Record<string, string>;

  beforeEach(async (context) => {
    project = makeProject();
    testDb = await createTestDatabase(dialect, context.task.name);
    env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: project };
  });

  afterEach(async () => {
    await db?.close();
    await testDb.drop();
    rmSync(project, { recursive: true, force: true });
  });

  async function idem(args: string[], extra: Record<string, string> = {}) {
    const result = await runCli(args, { ...env, ...extra });
    expect(result.code, `idem ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
    return result;
  }

  it('CSV: infers the airports sample, loads it with --file, and a changed elevation updates one row', async () => {
    const created = await idem(['new', 'airports', '--csv', AIRPORTS]);
    expect(created.stdout).toContain('key: iata (proposed');
    // The test it wrote imports vitest, which this project has not installed: the next steps say to.
    expect(created.stdout).toContain(`  idem check airports\n  npm i -D vitest   # the test idem new wrote runs under vitest, which this project lacks\n  npx vitest run test/pipelines/airports.test.ts\n`);
    const module = readFileSync(path.join(project, 'pipelines/airports.ts'), 'utf8');
    for (const line of [
      "key: 'iata',",
      "source: csvSource({ nullValues: ['', 'NA', 'NULL'] }),",
      'name: column.text(),',
      'state: column.text({ nullable: true }),',
      'latitude: column.decimal(10, 8),',
      'longitude: column.decimal(11, 8),',
      'elevation_ft: column.integer(),',
      'opened: column.date({ nullable: true }),',
      'has_tower: column.boolean(),',
      'last_inspected: column.instant({ nullable: true }),',
    ]) {
      expect(module).toContain(line);
    }
    expect(readFileSync(path.join(project, 'fixtures/airports/sample.csv'), 'utf8')).toBe(readFileSync(AIRPORTS, 'utf8'));
    const generatedTest = readFileSync(path.join(project, 'test/pipelines/airports.test.ts'), 'utf8');
    expect(generatedTest).toContain("import { startPipelineTest } from 'idem/testing';");
    expect(generatedTest).toContain(`kit.run(['--file', "fixtures/airports/sample.csv"])`);

    await idem(['migrate']);
    // A --file-only pipeline: no directory, fileForDate or date settings, and --date says so.
    const dated = await runCli(['run', 'airports', '--date', '2026-01-01'], env);
    expect(dated.code).toBe(2);
    expect(summaryOf(dated).err.message).toBe('pipeline "airports" declares no dated files (csvSource directory and fileForDate): run it with --file PATH');
    const first = await idem(['run', 'airports', '--file', AIRPORTS]);
    expect(summaryOf(first).counts.upsert).toMatchObject({ inserted: 20, updated: 0, unchanged: 0 });
    const again = await idem(['run', 'airports', '--file', AIRPORTS]);
    expect(summaryOf(again).outcome).toBe('noop');

    db = await openDatabase({ databaseUrl: testDb.url, projectDir: project });
    const guam = await db.knex('airports').where({ source_reference: 'GUM' }).first();
    expect(guam).toMatchObject({ name: 'Guam International', state: null, opened: null });
    expect(Number(guam.elevation_ft)).toBe(298);
    expect(String(guam.latitude)).toBe('13.48345000');
    const thigpen = await db.knex('airports').where({ source_reference: '00M' }).first();
    expect(thigpen.name).toBe('Thigpen '); // the trailing space is part of the value

    // The same export with one value changed: a new file, one update, nothing else touched.
    const changedDir = mkdtempSync(path.join(tmpdir(), 'idem-new-data-'));
    const changed = path.join(changedDir, 'airports-2.csv');
    writeFileSync(changed, readFileSync(AIRPORTS, 'utf8').replace('Agana,NA,Guam,13.48345,144.7959825,298,', 'Agana,NA,Guam,13.48345,144.7959825,305,'));
    try {
      const update = await idem(['run', 'airports', '--file', changed]);
      expect(summaryOf(update).counts.upsert).toMatchObject({ inserted: 0, updated: 1, unchanged: 19 });
      expect(Number((await db.knex('airports').where({ source_reference: 'GUM' }).first()).elevation_ft)).toBe(305);
      const rerun = await idem(['run', 'airports', '--file', changed]);
      expect(summaryOf(rerun).outcome).toBe('noop');

      // A value the inferred column refuses fails the run (invalidRows: 'fail'), naming file, line, field, rule and value.
      const bad = path.join(changedDir, 'airports-bad.csv');
      writeFileSync(bad, readFileSync(changed, 'utf8').replace('144.7959825,305,', '144.7959825,high,'));
      const refused = await runCli(['run', 'airports', '--file', bad], env);
      expect(refused.code).toBe(1);
      expect(summaryOf(refused).err.message).toContain(`(first: ${bad}:21: elevation_ft: must be a safe integer (got "high"))`);
    } finally {
      rmSync(changedDir, { recursive: true, force: true });
    }
  });

  it('JSON: infers the cars sample from its URL, renames fields to columns, and a changed horsepower updates one row', async () => {
    const cars = JSON.parse(readFileSync(CARS, 'utf8')) as Record<string, unknown>[];
    let body = JSON.stringify(cars);
    const api = await startCarsApi(() => body);
    try {
      const created = await idem(['new', 'cars', '--json', `${api.url}/cars`]);
      expect(created.stdout).toContain('key: id (proposed');
      const module = readFileSync(path.join(project, 'pipelines/cars.ts'), 'utf8');
      for (const line of [
        "path: '/cars',",
        "name: 'Name',",
        "miles_per_gallon: 'Miles_per_Gallon',",
        'miles_per_gallon: column.float({ nullable: true }),',
        'cylinders: column.integer(),',
        'horsepower: column.integer({ nullable: true }),',
        'acceleration: column.float(),',
        'year: column.date(),',
        'origin: column.text(),',
      ]) {
        expect(module).toContain(line);
      }
      expect(JSON.parse(readFileSync(path.join(project, 'fixtures/cars/sample.json'), 'utf8'))).toEqual(cars);

      await idem(['migrate']);
      const sources = { IDEM_SOURCES: JSON.stringify({ cars: { url: api.url } }) };
      const first = await idem(['run', 'cars', '--date', '2026-01-01'], sources);
      expect(summaryOf(first).counts.upsert).toMatchObject({ inserted: 12, updated: 0, unchanged: 0 });
      const again = await idem(['run', 'cars', '--date', '2026-01-01'], sources);
      expect(summaryOf(again).outcome).toBe('noop');

      db = await openDatabase({ databaseUrl: testDb.url, projectDir: project });
      const honda = await db.knex('cars').where({ source_reference: '12' }).first();
      expect(honda).toMatchObject({ name: 'honda civic cvcc', year: '1978-01-01' });
      expect(Number(honda.miles_per_gallon)).toBe(36.1);
      expect((await db.knex('cars').where({ source_reference: '6' }).first()).miles_per_gallon).toBeNull();

      body = JSON.stringify(cars.map((car) => (car.id === 3 ? { ...car, Horsepower: 155 } : car)));
      const update = await idem(['run', 'cars', '--date', '2026-01-02'], sources);
      expect(summaryOf(update).counts.upsert).toMatchObject({ inserted: 0, updated: 1, unchanged: 11 });
      expect(Number((await db.knex('cars').where({ source_reference: '3' }).first()).horsepower)).toBe(155);

      // The API renames Horsepower to HP: a field the pipeline reads that no item has is exit 2, not a null in every row.
      body = JSON.stringify(cars.map(({ Horsepower, ...car }) => ({ ...car, HP: Horsepower })));
      const renamed = await runCli(['run', 'cars', '--date', '2026-01-03'], { ...env, ...sources });
      expect([renamed.code, summaryOf(renamed).outcome]).toEqual([2, 'failed']);
      expect(summaryOf(renamed).msg).toContain(`${api.url}/cars: no item of the 12 read has the field "Horsepower", which the pipeline reads`);
      expect(summaryOf(renamed).msg).toContain('the items have: id, Name, Miles_per_Gallon, Cylinders, Displacement, Weight_in_lbs, Acceleration, Year, Origin, HP');
      expect(Number((await db.knex('cars').where({ source_reference: '3' }).first()).horsepower)).toBe(155);
    } finally {
      api.server.close();
    }
  });
});

describe('idem new --json URL: a paged API', () => {
  it('follows the paging for its sample, keeps paging out of path, and the pipeline loads every page with nothing quarantined', { timeout: 60_000 }, async () => {
    // As json-server pages: `_page` and `_limit` with a Link header while more follow; the first
    // page's weights are whole numbers, the later ones are not.
    const cars = Array.from({ length: 130 }, (_, i) => ({ id: i + 1, name: `car ${i + 1}`, weight: i < 50 ? 3000 + i : 3000.5 + i }));
    const asked: string[] = [];
    const server = createServer((request, response) => {
      asked.push(request.url!);
      const url = new URL(request.url!, 'http://x');
      if (url.pathname !== '/cars') return void response.writeHead(404).end();
      const limit = Number(url.searchParams.get('_limit') ?? cars.length);
      const page = Number(url.searchParams.get('_page') ?? 1);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (url.searchParams.has('_page') && page * limit < cars.length) headers.link = `<http://${request.headers.host}/cars?_page=${page + 1}&_limit=${limit}>; rel="next"`;
      response.writeHead(200, headers).end(JSON.stringify(cars.slice((page - 1) * limit, page * limit)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const project = makeProject();
    const testDb = await createTestDatabase('sqlite', 'idem-new-paged');
    try {
      const env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: project };
      const created = await runCli(['new', 'cars', '--json', `${api}/cars?_page=1&_limit=50`], env);
      expect(created.code, created.stderr).toBe(0);
      expect(asked).toEqual(['/cars?_page=1&_limit=50', '/cars?_page=2&_limit=50', '/cars?_page=3&_limit=50']);
      const module = readFileSync(path.join(project, 'pipelines/cars.ts'), 'utf8');
      expect(module).toContain("path: '/cars',");
      expect(module).toContain("paging: { style: 'page-number', pageParam: '_page', perPageParam: '_limit', perPage: 50 },");
      expect(module).toContain('weight: column.float(),'); // column.integer() from the first page alone

      expect((await runCli(['migrate'], env)).code).toBe(0);
      asked.length = 0;
      const run = await runCli(['run', 'cars', '--date', '2026-01-01'], { ...env, IDEM_SOURCES: JSON.stringify({ cars: { url: api } }) });
      expect([run.code, summaryOf(run).outcome], run.stderr).toEqual([0, 'completed']);
      expect(summaryOf(run).counts.extract).toMatchObject({ rows: 130, quarantined: 0 });
      expect(asked).toEqual(['/cars?_page=1&_limit=50', '/cars?_page=2&_limit=50', '/cars?_page=3&_limit=50']);
    } finally {
      server.close();
      await testDb.drop();
      rmSync(project, { recursive: true, force: true });
    }
  });
});

describe('idem new: the generated tests', () => {
  it('pass as written, run by vitest in the project of one\'s own (a CSV pipeline and an HTTP JSON one)', { timeout: 180_000 }, async () => {
    const project = makeProject();
    try {
      for (const args of [['new', 'airports', '--csv', AIRPORTS], ['new', 'cars', '--json', CARS]]) {
        const created = await runCli(args, { IDEM_PROJECT_DIR: project });
        expect(created.code, created.stderr).toBe(0);
      }
      expect(readFileSync(path.join(project, 'pipelines/cars.ts'), 'utf8')).toContain("path: '/cars',");
      // vitest as the project runs it (npx puts node_modules/.bin, and so the project's Node, first on PATH):
      // on a temp SQLite file, and on a scratch database of the PostgreSQL server DATABASE_URL names.
      const bin = path.join(PROJECT_DIR, 'node_modules/.bin');
      for (const databaseUrl of [undefined, ...(DIALECTS.includes('postgres') ? [PG_ADMIN_URL] : [])]) {
        const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
          const child = spawn(process.execPath, [path.join(PROJECT_DIR, 'node_modules/vitest/vitest.mjs'), 'run', '--root', project], {
            cwd: project,
            env: { PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: process.env.HOME, CI: '1', NO_COLOR: '1', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
          });
          let output = '';
          child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
          child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
          child.on('error', reject);
          child.on('close', (code) => resolve({ code, output }));
        });
        expect(result.code, `DATABASE_URL=${databaseUrl ?? ''}\n${result.output}`).toBe(0);
        expect(result.output).toMatch(/Tests\s+2 passed \(2\)/);
      }
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
