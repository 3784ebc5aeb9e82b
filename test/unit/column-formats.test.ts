import { createRequire } from 'node:module';
import { Big } from 'big.js';
import { DateTime } from 'luxon';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { canonicalField } from '../../src/column/canonical-field.ts';
import { canonicalValue } from '../../src/column/canonical-value.ts';
import { column } from '../../src/column/column-type.ts';
import { wallTimeParser } from '../../src/column/wall-time.ts';

const issue = (schema: z.ZodType, value: unknown): string | undefined => {
  const parsed = schema.safeParse(value);
  return parsed.success ? undefined : parsed.error.issues[0]!.message;
};

describe('column types read their formats', () => {
  it('an id: trimmed, a float form without its .0, empty text NULL, a JSON number its text, leading zeros kept', () => {
    const id = column.id({ nullable: true });
    expect(['17850.0', ' 17850 ', '17850', 17850, '007', ' AB-12 ', '', '  ', null].map((v) => canonicalValue('customer_id', id, v))).toEqual(
      ['17850', '17850', '17850', '17850', '007', 'AB-12', null, null, null],
    );
    expect(() => canonicalValue('customer_id', column.id(), '')).toThrow('column customer_id: must not be null (got "")');
    expect(() => canonicalValue('customer_id', id, 1.5)).toThrow('column customer_id: must be an identifier: text or a whole number (got 1.5)');
  });

  it('a decimal with its scale, from padded or signed text, a Big or a JSON number', () => {
    const price = column.decimal(10, 3);
    expect([' 2.5500 ', '+2.55', '2.55', 2.55, new Big('2.55'), '.5'].map((v) => canonicalValue('price', price, v))).toEqual(['2.550', '2.550', '2.550', '2.550', '2.550', '0.500']);
    expect(() => canonicalValue('price', price, '2.5555')).toThrow('column price: has more than 3 decimals (got "2.5555")');
  });

  it("takes a Big of another copy of big.js (a CommonJS pipeline module's) as a Big", () => {
    const { Big: OtherBig } = createRequire(import.meta.url)('big.js') as { Big: typeof Big };
    expect(OtherBig).not.toBe(Big);
    expect(canonicalValue('total', column.decimal(14, 3), new OtherBig('139.12'))).toBe('139.120');
    expect(canonicalField.decimal(3).parse(new OtherBig('15.3'))).toBe('15.300');
  });

  it("a wall time in the pipeline's zone, refused where it does not exist there", () => {
    const soldAt = column.instant({ wallTime: 'dd/MM/yyyy HH:mm' });
    const at = (text: string) => canonicalValue('sold_at', soldAt, text, 'Europe/London');
    expect(at('01/07/2026 09:30')).toBe('2026-07-01T08:30:00.000Z');   // BST
    expect(at(' 15/12/2025 23:05 ')).toBe('2025-12-15T23:05:00.000Z'); // GMT
    expect(at('25/10/2026 01:30')).toBe('2026-10-25T01:30:00.000Z');   // twice that night: the second (GMT)
    expect(at('2026-07-01T08:30:00.000Z')).toBe('2026-07-01T08:30:00.000Z');
    for (const text of ['29/03/2026 01:30', '31/02/2026 10:00', '01/07/2026 24:00', '2026-07-01 09:30']) {
      expect(() => at(text)).toThrow(`column sold_at: must be a date and time dd/MM/yyyy HH:mm that exists in Europe/London (got "${text}")`);
    }
    expect(() => canonicalValue('sold_at', soldAt, '01/07/2026 09:30')).toThrow("column sold_at: a wall time needs the pipeline's time zone");
  });

  it('parses each distinct wall time once', () => {
    const fromFormat = vi.spyOn(DateTime, 'fromFormat');
    const parse = wallTimeParser('HH:mm dd.MM.yyyy', 'Europe/Berlin');
    expect([parse('08:00 01.12.2010'), parse('08:00 01.12.2010'), parse(' 08:00 01.12.2010'), parse('09:00 01.12.2010')]).toEqual(
      ['2010-12-01T07:00:00.000Z', '2010-12-01T07:00:00.000Z', '2010-12-01T07:00:00.000Z', '2010-12-01T08:00:00.000Z'],
    );
    expect(fromFormat).toHaveBeenCalledTimes(2);
    expect(wallTimeParser('HH:mm dd.MM.yyyy', 'Europe/Berlin')).toBe(parse);
    fromFormat.mockRestore();
  });

  it("a json column's value by its shape: nested values canonical, a refusal naming the path", () => {
    const lines = column.json({ shape: z.array(z.object({ sku: z.string(), qty: canonicalField.integer(), amount: canonicalField.decimal(3) })) });
    expect(canonicalValue('lines', lines, [{ sku: 'A', qty: ' 6.0 ', amount: new Big('15.3') }, { amount: 2, qty: 1, sku: 'B' }])).toEqual(
      [{ amount: '15.300', qty: 6, sku: 'A' }, { amount: '2.000', qty: 1, sku: 'B' }],
    );
    expect(() => canonicalValue('lines', lines, [{ sku: 'A', qty: '1.5', amount: '1' }])).toThrow('column lines: at 0.qty: expected an integer (got [{"sku":"A","qty":"1.5","amount":"1"}])');
  });
});

describe('canonicalField', () => {
  it('gives zod fields the canonical forms, with issues an operator reads', () => {
    expect(canonicalField.integer().parse(' 6.0 ')).toBe(6);
    expect(issue(canonicalField.integer(), 'six')).toBe('expected an integer');
    expect(canonicalField.decimal().parse(' 2.5500')).toBe('2.55');
    expect(canonicalField.decimal(3).parse(new Big('15.3'))).toBe('15.300');
    expect(issue(canonicalField.decimal(2), '1.005')).toBe('has more than 2 decimals');
    expect(issue(canonicalField.decimal(), '2,55')).toBe('expected a decimal number such as 2.55');
    expect(canonicalField.id().parse('17850.0')).toBe('17850');
    expect(canonicalField.id().parse('')).toBeNull();
    const time = canonicalField.wallTime('yyyy-MM-dd HH:mm:ss', 'Europe/London');
    expect(time.parse('2010-12-01 08:26:00')).toBe('2010-12-01T08:26:00.000Z');
    expect(issue(time, '2011-03-27 01:30:00')).toBe('expected a date and time that exist in Europe/London');
    expect(issue(time, '2010-12-01T08:26:00')).toBe('expected a date and time that exist in Europe/London');
  });
});
