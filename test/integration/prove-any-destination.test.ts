import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runIdemChild } from '../../src/child-process/start-idem-child.ts';
import { PROJECT_DIR } from '../helpers/run-cli.ts';

// A project of its own whose destination is not the sandbox's POST /invoices: `idem prove`'s
// stand-in does not serve POST /cars, and the failed check must say so, not only count items.

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
    request: (row) => ({ method: 'POST', path: '/cars', body: { name: row.sourceReference, hp: row.values.hp } }),
    remoteReference: (body) => String((body as { id: unknown }).id),
  }],
});
`;

const MIGRATION = `import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

export async function up(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.createPipelineTables({ staging: 'stg_cars', target: 'cars', columns: { hp: column.integer() } });
}

export async function down(_knex: Knex, idem: MigrationContext): Promise<void> {
  await idem.dropPipelineTables({ staging: 'stg_cars', target: 'cars' });
}
`;

describe('idem prove on a destination its stand-in does not serve', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('fails the clean run and says which answer the items got', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'idem-prove-cars-'));
    for (const sub of ['pipelines', 'migrations', 'data', 'node_modules']) mkdirSync(path.join(dir, sub));
    symlinkSync(PROJECT_DIR, path.join(dir, 'node_modules', 'idem'), 'dir');
    symlinkSync(path.join(PROJECT_DIR, 'node_modules', 'zod'), path.join(dir, 'node_modules', 'zod'), 'dir');
    writeFileSync(path.join(dir, 'pipelines', 'cars.ts'), PIPELINE);
    writeFileSync(path.join(dir, 'migrations', '20270101000000_create_cars.ts'), MIGRATION);
    const file = path.join(dir, 'data', 'cars.csv');
    writeFileSync(file, 'name,hp\nchevrolet chevelle malibu,130\nbuick skylark 320,165\nplymouth satellite,150\n');
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, IDEM_PROJECT_DIR: dir };
    const result = await runIdemChild(['prove', 'cars', '--file', file, '--seed', '1'], env, { cwd: dir });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const line = result.stdout.split('\n').find((l) => l.includes('clean run'));
    expect(line, result.stdout).toMatch(/fail/);
    expect(line).toMatch(/exit 3: .*3 item\(s\) failed at cars-api: HTTP 404 \(e\.g\. reference [a-z0-9 ]+\): /);
  });
});
