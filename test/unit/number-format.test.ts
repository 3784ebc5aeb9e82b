import { describe, expect, it } from 'vitest';
import { PLAIN_NUMBERS, plainNumberText } from '../../src/source/number-format.ts';

describe('plainNumberText', () => {
  it('leaves plain numbers as they are (no work for the default)', () => {
    const plain = plainNumberText(PLAIN_NUMBERS);
    expect(['1234.50', '1,5', 'x'].map(plain)).toEqual(['1234.50', '1,5', 'x']);
  });

  it('reads a decimal comma with dots between groups of three (German, Dutch)', () => {
    const de = plainNumberText({ decimalSeparator: ',', groupSeparator: '.' });
    expect(['1.234,50', '1234,50', '-0,10', '+12', '1.234.567', '0,001'].map(de)).toEqual(['1234.50', '1234.50', '-0.10', '+12', '1234567', '0.001']);
    for (const bad of ['1.23.4,5', '1,2,3', '1.2345', ',5', '1,', '1.234.56', '1 234,5', '']) {
      expect(() => de(bad), bad).toThrow('must be a number written with "," between the whole and the decimal part and "." between groups of three digits');
    }
  });

  it('reads a decimal comma without groups, and spaces or apostrophes between groups', () => {
    expect(plainNumberText({ decimalSeparator: ',' })('1234,5')).toBe('1234.5');
    expect(() => plainNumberText({ decimalSeparator: ',' })('1.234,5')).toThrow('must be a number written with "," between the whole and the decimal part');
    expect(plainNumberText({ decimalSeparator: ',', groupSeparator: ' ' })('1 234 567,89')).toBe('1234567.89');
    expect(plainNumberText({ decimalSeparator: '.', groupSeparator: "'" })("1'234.50")).toBe('1234.50');
    expect(plainNumberText({ decimalSeparator: '.', groupSeparator: ',' })('1,234,567.5')).toBe('1234567.5');
  });
});
