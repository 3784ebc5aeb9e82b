import { describe, expect, it } from 'vitest';
import { canonicalValue } from '../../src/column/canonical-value.ts';
import { canonical } from '../../src/column/canonical.ts';
import { column } from '../../src/column/column-type.ts';
import { rowHash } from '../../src/pipeline/row-hash.ts';

describe('canonicalValue', () => {
  const money = column.decimal(6, 2);

  it('writes decimals with exactly their scale, from strings, never floats', () => {
    expect(canonicalValue('total', money, '10.5')).toBe('10.50');
    expect(canonicalValue('total', money, '-0.1')).toBe('-0.10');
    expect(canonicalValue('total', money, '1234.00')).toBe('1234.00');
    expect(() => canonicalValue('total', money, true)).toThrow('column total: must be a decimal string, a Big or a JSON number (got true)');
    expect(() => canonicalValue('total', money, '1.005')).toThrow('column total: has more than 2 decimals (got "1.005")');
    expect(() => canonicalValue('total', money, '12345.00')).toThrow('column total: needs more than 6 digits');
  });

  it('takes a JSON number for a decimal when a double carries it exactly', () => {
    expect(canonicalValue('total', money, 10.5)).toBe('10.50');
    expect(canonicalValue('total', money, 0.1)).toBe('0.10');
    expect(canonicalValue('total', column.decimal(20, 2), 1234567890123.45)).toBe('1234567890123.45');
    expect(() => canonicalValue('total', money, 1.005)).toThrow('column total: has more than 2 decimals (got 1.005)');
    expect(() => canonicalValue('total', column.decimal(20, 2), 12345678901234.56)).toThrow('more than 15 significant digits');
  });

  it('keeps a float as the double it is, from a number or decimal text', () => {
    const reading = column.float();
    expect(canonicalValue('temp', reading, 0.1)).toBe(0.1);
    expect(canonicalValue('temp', reading, '0.10')).toBe(0.1);
    expect(canonicalValue('temp', reading, '-12.5e-3')).toBe(-0.0125);
    expect(Object.is(canonicalValue('temp', reading, -0), 0)).toBe(true);
    expect(() => canonicalValue('temp', reading, Number.NaN)).toThrow('column temp: must be a finite number');
    expect(() => canonicalValue('temp', reading, 'warm')).toThrow('column temp: must be a finite number (got "warm")');
    expect(() => canonicalValue('temp', reading, true)).toThrow('column temp: must be a number (got true)');
    expect(rowHash('s', 'k', [canonicalValue('temp', reading, '0.10')])).toBe(rowHash('s', 'k', [0.1]));
    expect(rowHash('s', 'k', [0.1])).not.toBe(rowHash('s', 'k', [0.1000000000000001]));
  });

  it('checks nulls, dates and instants', () => {
    expect(canonicalValue('c', column.text({ nullable: true }), null)).toBeNull();
    expect(() => canonicalValue('c', column.text(), null)).toThrow('column c: must not be null (got null)');
    expect(canonicalValue('d', column.date(), '2011-03-27')).toBe('2011-03-27');
    expect(() => canonicalValue('d', column.date(), '27/03/2011')).toThrow('must be a YYYY-MM-DD string');
    expect(canonicalValue('t', column.instant(), new Date(Date.UTC(2011, 2, 27, 1, 30)))).toBe('2011-03-27T01:30:00.000Z');
    expect(() => canonicalValue('n', column.integer(), 1.5)).toThrow('must be a safe integer');
  });
});

describe('rowHash', () => {
  it('is stable, and changes with the key or any value', () => {
    const base = rowHash('shop', '536365', ['invoice', null, '139.12']);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(rowHash('shop', '536365', ['invoice', null, '139.12'])).toBe(base);
    expect(rowHash('shop', '536366', ['invoice', null, '139.12'])).not.toBe(base);
    expect(rowHash('shop', '536365', ['invoice', '', '139.12'])).not.toBe(base);
    expect(rowHash('shop', '536365', ['invoice', null, '139.120'])).not.toBe(base);
  });
});

describe('canonicalValue of json columns', () => {
  it('sorts object keys at every depth, keeps array order, and refuses non-finite numbers', () => {
    const doc = column.json();
    const a = canonicalValue('doc', doc, { b: 1, a: [{ y: 2, x: 1 }, 3], c: { e: null, d: 'x' } });
    const b = canonicalValue('doc', doc, { c: { d: 'x', e: null }, a: [{ x: 1, y: 2 }, 3], b: 1 });
    expect(JSON.stringify(a)).toBe('{"a":[{"x":1,"y":2},3],"b":1,"c":{"d":"x","e":null}}');
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(rowHash('s', 'r', [a])).toBe(rowHash('s', 'r', [b]));
    expect(JSON.stringify(canonicalValue('doc', doc, [{ b: 1, a: undefined }]))).toBe('[{"b":1}]');
    expect(() => canonicalValue('doc', doc, { n: Number.NaN })).toThrow('column doc: a JSON number must be finite (got NaN)');
  });
});

describe('canonical', () => {
  it('decimal: the shortest exact text, or exactly `scale` decimals; never rounds', () => {
    expect(canonical.decimal('2.5500')).toBe('2.55');
    expect(canonical.decimal(' 2.55 ')).toBe('2.55');
    expect(canonical.decimal('+010')).toBe('10');
    expect(canonical.decimal('.5')).toBe('0.5');
    expect(canonical.decimal('3.')).toBe('3');
    expect(canonical.decimal('-0.00')).toBe('0');
    expect(canonical.decimal('0.00000001')).toBe('0.00000001');
    expect(canonical.decimal('2.5', 3)).toBe('2.500');
    expect(canonical.decimal('2.55000', 2)).toBe('2.55');
    expect(() => canonical.decimal('2.555', 2)).toThrow('decimal: has more than 2 decimals (got "2.555")');
    expect(() => canonical.decimal('2,55')).toThrow('decimal: expected a decimal number such as 2.55 (got "2,55")');
    expect(() => canonical.decimal('1e3')).toThrow('expected a decimal number');
  });

  it('integer, id and text', () => {
    expect(canonical.integer('6.0')).toBe(6);
    expect(canonical.integer(' -12 ')).toBe(-12);
    expect(() => canonical.integer('6.5')).toThrow('integer: expected a whole number such as 6 (got "6.5")');
    expect(() => canonical.integer('9007199254740993')).toThrow('is beyond');
    expect(canonical.id('17850.0')).toBe('17850');
    expect(canonical.id(' 17850 ')).toBe('17850');
    expect(canonical.id('007')).toBe('007');
    expect(canonical.id('  ')).toBeNull();
    expect(() => canonical.id('17850.5')).toThrow('id: expected a whole number such as 17850 or 17850.0 (got "17850.5")');
    expect(canonical.text('  United Kingdom ')).toBe('United Kingdom');
    expect(canonical.optionalText(' \t')).toBeNull();
  });
});
