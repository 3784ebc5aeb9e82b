import { describe, expect, it } from 'vitest';
import { canonicalValue } from '../../src/column/canonical-value.ts';
import { column } from '../../src/column/column-type.ts';
import { rowHash } from '../../src/pipeline/row-hash.ts';

describe('canonicalValue', () => {
  const money = column.decimal(6, 2);

  it('writes decimals with exactly their scale, from strings, never floats', () => {
    expect(canonicalValue('total', money, '10.5')).toBe('10.50');
    expect(canonicalValue('total', money, '-0.1')).toBe('-0.10');
    expect(canonicalValue('total', money, '1234.00')).toBe('1234.00');
    expect(() => canonicalValue('total', money, 10.5)).toThrow('column total: must be a decimal string or Big (never a float) (got 10.5)');
    expect(() => canonicalValue('total', money, '1.005')).toThrow('column total: has more than 2 decimals (got "1.005")');
    expect(() => canonicalValue('total', money, '12345.00')).toThrow('column total: needs more than 6 digits');
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
