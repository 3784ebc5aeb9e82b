import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { column } from '../../src/column/column-type.ts';
import { SqliteDialect } from '../../src/dialect/sqlite/sqlite-dialect.ts';
import { PipelineError } from '../../src/errors/pipeline-error.ts';
import { RawJson, stringifyJson } from '../../src/http/raw-json.ts';
import type { LedgerItem } from '../../src/ledger/ledger-item.ts';
import { definePipeline } from '../../src/pipeline/define-pipeline.ts';
import { toPostedRow } from '../../src/post/read-posted-rows.ts';
import { csvSource } from '../../src/source/csv/csv-source.ts';

const Lines = z.array(z.object({ sku: z.string(), qty: z.number() }));
const pipeline = definePipeline({
  name: 'typed-values',
  sourceSystem: 'shop',
  timeZone: 'UTC',
  key: 'ref',
  source: csvSource({}),
  tables: { staging: 'stg_typed', target: 'typed' },
  columns: { total: column.decimal(12, 3), customer: column.id({ nullable: true }), lines: column.json({ shape: Lines }), note: column.json({ nullable: true }) },
  destinations: [{
    name: 'api',
    strategy: 'idempotency-key',
    request: (row) => {
      const total: string = row.values.total;
      const customer: string | null = row.values.customer;
      const skus: string[] = row.values.lines.map((line) => line.sku);
      // @ts-expect-error: `totl` is no column of the pipeline, a compile error in an editor.
      const typo: unknown = row.values.totl;
      return { method: 'POST', path: '/', body: { total, customer, skus, typo } };
    },
    remoteReference: () => 'r',
  }],
});

describe('PostedRow.values', () => {
  const adapter = new SqliteDialect('var/never-opened.sqlite3');
  const item = { id: 7, sourceSystem: 'shop', sourceReference: '536365', version: 'abc' } as LedgerItem;
  const lines = '[{"qty":6,"sku":"85123A"},{"qty":2,"sku":"71053"}]';
  const rowOf = () => toPostedRow({ adapter } as never, pipeline, item, { total: '139.120', customer: '17850', lines, note: null });

  it('throws for a name that is no column, naming it and the columns', () => {
    const row = rowOf();
    expect(() => (row.values as Record<string, unknown>).totl).toThrow(new PipelineError('row.values.totl: the pipeline has no column "totl" (its columns: total, customer, lines, note)'));
    expect(() => pipeline.destinations[0]!.request(row)).toThrow('row.values.totl: the pipeline has no column "totl"');
  });

  it('answers the probes of JSON.stringify, await, util.inspect and vitest as a plain object does', async () => {
    const row = rowOf();
    const values = row.values as Record<string | symbol, unknown>;
    expect(values.toJSON).toBeUndefined();
    expect(values.then).toBeUndefined();
    expect(values[Symbol.iterator]).toBeUndefined();
    expect(values.hasOwnProperty('total')).toBe(true);
    expect(await Promise.resolve(row.values)).toBe(row.values);
    expect(JSON.parse(JSON.stringify(row.values))).toEqual({ total: '139.120', customer: '17850', lines: JSON.parse(lines), note: null });
    expect(row.values).toEqual({ total: '139.120', customer: '17850', lines: JSON.parse(lines), note: null });
    expect(row.values).toMatchObject({ total: '139.120' });
    expect(inspect(row.values)).toContain("total: '139.120'");
    expect(String(row.values)).toBe('[object Object]');
  });

  it('sends a json column into a body as its stored text, parsed only when something in it is read', () => {
    const parse = vi.spyOn(RawJson.prototype, 'parse');
    const row = rowOf();
    expect(stringifyJson({ lines: row.values.lines, total: row.values.total })).toBe(`{"lines":${lines},"total":"139.120"}`);
    expect(parse).toHaveBeenCalledTimes(0);
    const document = row.values.lines;
    expect(Array.isArray(document)).toBe(true);
    expect(document.length).toBe(2);
    expect(parse).toHaveBeenCalledTimes(1);
    expect(document.map((line) => line.sku)).toEqual(['85123A', '71053']);
    expect([...document]).toEqual([{ qty: 6, sku: '85123A' }, { qty: 2, sku: '71053' }]);
    expect(inspect(document)).toContain("sku: '85123A'");
    expect(row.values.lines).toBe(document);
    // Read and changed, it is sent as it is now.
    document[1]!.qty = 3;
    expect(stringifyJson({ lines: row.values.lines })).toBe('{"lines":[{"qty":6,"sku":"85123A"},{"qty":3,"sku":"71053"}]}');
    expect(parse).toHaveBeenCalledTimes(1);
    parse.mockRestore();
  });

  it('gives an object document its members and keys, and util.inspect shows it unread', () => {
    const row = toPostedRow({ adapter } as never, pipeline, item, { total: '1.000', customer: null, lines: '[]', note: '{"b":[1],"a":"x","__proto__":1}' });
    const note = row.values.note as Record<string, unknown>;
    expect(inspect(note)).toContain("a: 'x'");
    expect(Object.keys(note)).toEqual(['b', 'a', '__proto__']);
    expect(Object.getPrototypeOf(note)).toBe(Object.prototype);
    expect(note).toEqual({ b: [1], a: 'x', ['__proto__']: 1 });
    expect('a' in note).toBe(true);
    expect(row.values.customer).toBeNull();
  });
});
