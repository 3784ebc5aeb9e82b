import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { column } from '../../src/column/column-type.ts';
import { COLUMNS } from '../fixtures/values-project/pipelines/test-values.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { PROJECT_DIR, runCli, summaryOf } from '../helpers/run-cli.ts';

/** A project with one pipeline, `test-values`, that has a column of every type. */
const PROJECT = path.join(PROJECT_DIR, 'test', 'fixtures', 'values-project');
/** The day New York moves its clocks forward: a local-midnight conversion would show here. */
const DAY = '2026-03-08';
const HEADER = ['ref', 'amount', 'label', 'code', 'day', 'at', 'flag', 'doc', 'qty'];

type Row = Record<(typeof HEADER)[number], string>;
const row = (...fields: string[]): Row => Object.fromEntries(HEADER.map((h, i) => [h, fields[i]!]));

// `NULL` stands for NULL (the pipeline maps it); everything else is the exact value.
const FIRST: Row[] = [
  row('A', '10.50', 'Widget', 'X1', '2026-03-08', '2026-03-08T07:30:00.000Z', 'true', '{"b":1,"a":[1,2]}', '1'),
  row('B', '0.10', 'widget ', 'K ', '2026-01-01', '2026-11-01T05:59:59.999Z', 'false', 'NULL', '-5'),
  row('C', '-99999999.99', '', '', '1999-12-31', '2000-01-01T00:00:00.000Z', 'true', '"text"', '9007199254740991'),
  row('D', '1.00', 'NULL', 'NULL', '2026-03-09', '2026-03-08T06:59:59.001Z', 'false', '[]', '0'),
  row('E', '3.00', 'back\\slash\ttab and\nnewline \\N "quoted"', 'ünï €', '2024-02-29', '2024-02-29T23:59:59.999Z', 'true', '{"k":"v"}', '42'),
];

function csv(rows: readonly Row[]): string {
  const field = (text: string): string => (/[",\n\r\t]|^\s|\s$|^$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  return `${[HEADER, ...rows.map((r) => HEADER.map((h) => r[h]!))].map((fields) => fields.map(field).join(',')).join('\n')}\n`;
}

/** What the target row should hold, canonically. */
function expected(r: Row): Record<string, unknown> {
  const nullable = (text: string): string | null => (text === 'NULL' ? null : text);
  return {
    source_reference: r.ref,
    amount: r.amount,
    label: nullable(r.label!),
    code: nullable(r.code!),
    day: r.day,
    at: r.at,
    flag: r.flag === 'true',
    doc: r.doc === 'NULL' ? null : JSON.parse(r.doc!),
    qty: Number(r.qty),
  };
}

/** Byte order, the same on every dialect (database collations order 'A', 'A ' and 'a' differently). */
const byReference = (a: Record<string, unknown>, b: Record<string, unknown>): number =>
  Buffer.compare(Buffer.from(String(a.source_reference)), Buffer.from(String(b.source_reference)));

describeEachDialect('values keep their exact type through stage and upsert, in a process west of UTC', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let env: Record<string, string>;
  let dataDir: string;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    dataDir = mkdtempSync(path.join(tmpdir(), 'idem-values-'));
    env = { DATABASE_URL: testDb.url, IDEM_PROJECT_DIR: PROJECT, IDEM_SOURCE_DIR: dataDir, TZ: 'America/New_York' };
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    db = await openDatabase({ databaseUrl: testDb.url, projectDir: PROJECT });
  });

  afterEach(async () => {
    await db.close();
    await testDb.drop();
  });

  async function run(rows: readonly Row[], force = false) {
    writeFileSync(path.join(dataDir, `${DAY}.csv`), csv(rows));
    const result = await runCli(['run', 'test-values', '--date', DAY, ...(force ? ['--force'] : [])], env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    return summaryOf(result).counts.upsert as Record<string, number>;
  }

  async function target(): Promise<Record<string, unknown>[]> {
    const rows = (await db.knex('test_values').select('*')) as Record<string, unknown>[];
    return rows
      .map((r) => ({
        source_reference: r.source_reference,
        ...Object.fromEntries(Object.entries(COLUMNS).map(([name, spec]) => [name, db.adapter.fromDriverValue(spec, r[name])])),
        updated_at: db.adapter.fromDriverValue(column.instant(), r.updated_at),
      }))
      .sort(byReference);
  }

  it('keeps decimals, dates, instants, booleans, JSON and text exactly; a rerun updates nothing', async () => {
    expect(await run(FIRST)).toMatchObject({ inserted: 5, updated: 0, unchanged: 0 });
    const stored = await target();
    expect(stored.map(({ updated_at: _, ...r }) => r)).toEqual(FIRST.map(expected));
    // Stamps are the run's real UTC time, not shifted by New York's offset.
    for (const r of stored) expect(Math.abs(Date.parse(r.updated_at as string) - Date.now())).toBeLessThan(120_000);
    const jobRun = await db.knex('job_runs').first();
    expect(Math.abs(Date.parse(db.adapter.fromDriverValue(column.instant(), jobRun.started_at) as string) - Date.now())).toBeLessThan(120_000);

    // A json column reads back as the text JSON.stringify wrote of the canonical value (keys sorted), never
    // normalised by the database: what `PostedRow.rawJson` sends.
    const docs = ((await db.knex('test_values').select('source_reference', 'doc')) as { source_reference: string; doc: unknown }[])
      .map((r) => [r.source_reference, db.adapter.fromDriverJsonText(r.doc)])
      .sort(([a], [b]) => Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b))));
    expect(docs).toEqual([['A', '{"a":[1,2],"b":1}'], ['B', null], ['C', '"text"'], ['D', '[]'], ['E', '{"k":"v"}']]);

    expect(await run(FIRST, true)).toMatchObject({ inserted: 0, updated: 0, unchanged: 5 });
    expect(await target()).toEqual(stored);
  });

  it('counts a change of case, of a trailing space and from empty to NULL, and keeps keys that differ only so apart', async () => {
    expect(await run(FIRST)).toMatchObject({ inserted: 5 });
    const before = await target();
    const second = [
      { ...FIRST[0]!, label: 'widget' },
      { ...FIRST[1]!, label: 'widget' },
      { ...FIRST[2]!, label: 'NULL' },
      FIRST[3]!,
      FIRST[4]!,
      { ...FIRST[0]!, ref: 'a' },
      { ...FIRST[0]!, ref: 'A ' },
    ];
    expect(await run(second, true)).toMatchObject({ inserted: 2, updated: 3, unchanged: 2 });
    const after = await target();
    expect(after.map(({ updated_at: _, ...r }) => r)).toEqual(second.map(expected).sort(byReference));
    const unchanged = after.filter((r) => before.some((b) => b.source_reference === r.source_reference && b.updated_at === r.updated_at));
    expect(unchanged.map((r) => r.source_reference)).toEqual(['D', 'E']);
  });
});
