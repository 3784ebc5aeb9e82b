import { describe, expect, it, vi } from 'vitest';
import { SqliteDialect } from '../../src/dialect/sqlite/sqlite-dialect.ts';
import { RawJson, stringifyJson } from '../../src/http/raw-json.ts';
import type { LedgerItem } from '../../src/ledger/ledger-item.ts';
import type { PipelineDefinition } from '../../src/pipeline/pipeline-definition.ts';
import { toPostedRow } from '../../src/post/read-posted-rows.ts';
import { column } from '../../src/column/column-type.ts';

describe('RawJson in a request body', () => {
  it('is written as its text, byte for byte, wherever it sits in the body', () => {
    const lines = '[{"sku":"85123A","qty":6,"price":"2.55"},{"sku":"71053","qty":6,"price":"3.39"}]';
    const body = { reference: '536365', lines: new RawJson(lines), nested: [new RawJson('{"b":1,"a":2}'), null, new RawJson('"x"')] };
    expect(stringifyJson(body)).toBe(`{"reference":"536365","lines":${lines},"nested":[{"b":1,"a":2},null,"x"]}`);
  });

  it('serialises as its parsed value anywhere else, so both give the same JSON', () => {
    const body = { lines: new RawJson('[1,{"a":"b"}]'), n: 1 };
    expect(JSON.stringify(body)).toBe('{"lines":[1,{"a":"b"}],"n":1}');
    expect(stringifyJson(body)).toBe(JSON.stringify(body));
    expect(JSON.parse(JSON.stringify(body))).toEqual({ lines: [1, { a: 'b' }], n: 1 });
  });

  it('keeps text with replacement patterns ($&, $1) and the placeholder prefix as is', () => {
    const text = '"$& $1 $$ idem-raw-json:"';
    expect(stringifyJson({ a: new RawJson(text), b: 'idem-raw-json:0' })).toBe(`{"a":${text},"b":"idem-raw-json:0"}`);
  });

  it('is plain JSON.stringify for a body without one', () => {
    const body = { a: [1, 'two', null], b: { c: true } };
    expect(stringifyJson(body)).toBe(JSON.stringify(body));
    expect(stringifyJson(undefined)).toBeUndefined();
  });

  it('refuses one serialised inside a string by a toJSON of the caller, which cannot be spliced', () => {
    const raw = new RawJson('[1]');
    const body = { wrapped: { toJSON: () => JSON.stringify({ raw }) } };
    expect(() => stringifyJson(body)).toThrow(/serialised inside a string/);
    // The next serialisation is not affected.
    expect(stringifyJson({ raw })).toBe('{"raw":[1]}');
  });
});

describe('toPostedRow', () => {
  const adapter = new SqliteDialect('var/never-opened.sqlite3');
  const pipeline = { columns: { total: column.decimal(12, 3), lines: column.json(), note: column.json({ nullable: true }) } } as unknown as PipelineDefinition;
  const item = { id: 7, sourceSystem: 'shop', sourceReference: '536365', version: 'abc' } as LedgerItem;

  it('carries each json column as its text, and parses it into values only when read', () => {
    const text = '[{"qty":6},{"qty":2}]';
    const parse = vi.spyOn(RawJson.prototype, 'parse');
    const row = toPostedRow({ adapter } as never, pipeline, item, { total: '139.120', lines: text, note: null });
    expect(row.rawJson).toEqual({ lines: new RawJson(text), note: null });
    expect(stringifyJson({ lines: row.rawJson.lines })).toBe(`{"lines":${text}}`);
    expect(row.values.total).toBe('139.120');
    expect(parse).toHaveBeenCalledTimes(0);
    const lines = row.values.lines;
    expect(lines).toEqual([{ qty: 6 }, { qty: 2 }]);
    // Parsed once: the same array on every later read, however it is read.
    expect(row.values.lines).toBe(lines);
    expect(Object.keys(row.values)).toEqual(['total', 'lines', 'note']);
    expect(Object.getOwnPropertyDescriptor(row.values, 'lines')).toMatchObject({ value: lines, enumerable: true });
    expect({ ...row.values }).toEqual({ total: '139.120', lines: [{ qty: 6 }, { qty: 2 }], note: null });
    expect(Object.entries(row.values)[1]).toEqual(['lines', lines]);
    expect(parse).toHaveBeenCalledTimes(1);
    parse.mockRestore();
  });

  it('parses a json column read first by a spread, Object.entries or JSON.stringify', () => {
    const read = [(v: object) => ({ ...v }), (v: object) => Object.fromEntries(Object.entries(v)), (v: object) => JSON.parse(JSON.stringify(v)) as unknown];
    for (const readAll of read) {
      const row = toPostedRow({ adapter } as never, pipeline, item, { total: '1.000', lines: '[1,2]', note: '{"a":"b"}' });
      expect(readAll(row.values)).toEqual({ total: '1.000', lines: [1, 2], note: { a: 'b' } });
    }
  });
});
