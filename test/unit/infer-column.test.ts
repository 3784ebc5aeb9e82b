import { describe, expect, it } from 'vitest';
import { column } from '../../src/column/column-type.ts';
import { inferColumn } from '../../src/scaffold/infer-column.ts';
import { proposeKey } from '../../src/scaffold/propose-key.ts';

describe('inferColumn', () => {
  const text = (values: (string | null)[]) => inferColumn(values, 'text', 'Europe/London');

  it('infers the narrowest type every text of a CSV sample fits, nullable when a value is null', () => {
    expect(text(['1', '-20', '300'])).toEqual(column.integer());
    expect(text(['1', null])).toEqual(column.integer({ nullable: true }));
    expect(text(['007', '12'])).toEqual(column.text()); // a code with leading zeros keeps them
    expect(text(['1.5', '-120.25', '3'])).toEqual(column.decimal(5, 2)); // the widest value: 3 digits before the point, 2 after
    expect(text(['31.95376472', '-104.5698933'])).toEqual(column.decimal(11, 8));
    expect(text(['0.1234567890123456'])).toEqual(column.float()); // wider than 15 digits
    expect(text(['1e-3', '2.5'])).toEqual(column.float());
    expect(text(['true', 'FALSE'])).toEqual(column.boolean());
    expect(text(['2024-02-29', '1970-01-01'])).toEqual(column.date());
    expect(text(['2023-02-29'])).toEqual(column.text()); // no such day
    expect(text(['2024-03-01 08:30:00', '2024-03-01T08:30:00Z'])).toEqual(column.instant());
    expect(text(['Thigpen ', 'x'])).toEqual(column.text());
    expect(text([null, null])).toEqual(column.text({ nullable: true }));
  });

  it('infers JSON values by their kind: whole numbers integer, other numbers float, strings by the text rules', () => {
    const json = (values: unknown[]) => inferColumn(values, 'json', 'UTC');
    expect(json([1, 2, null])).toEqual(column.integer({ nullable: true }));
    expect(json([12, 11.5])).toEqual(column.float());
    expect(json([true, false])).toEqual(column.boolean());
    expect(json(['1970-01-01'])).toEqual(column.date());
    expect(json(['12.50', '3.10'])).toEqual(column.decimal(4, 2)); // money sent as strings
    expect(json(['42'])).toEqual(column.text()); // a string that looks whole stays a string
    expect(json([{ a: 1 }, [1]])).toEqual(column.json());
    expect(json([1, 'one'])).toEqual(column.json());
  });
});

describe('proposeKey', () => {
  it('proposes the first field present and unique in every row, never one with a gap or a repeat', () => {
    const rows = [
      { name: 'a', code: 'X1', id: 1 },
      { name: 'a', code: 'X2', id: 2 },
      { name: 'b', code: null, id: 3 },
    ];
    expect(proposeKey(['name', 'code', 'id'], rows)).toBe('id');
    expect(proposeKey(['name', 'code'], rows)).toBeUndefined();
  });
});
