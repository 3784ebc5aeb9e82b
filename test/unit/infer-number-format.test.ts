import { describe, expect, it } from 'vitest';
import { inferNumberFormat } from '../../src/source/csv/infer-number-format.ts';
import { PLAIN_NUMBERS } from '../../src/source/number-format.ts';

describe('inferNumberFormat (idem new, CSV samples)', () => {
  it('a decimal comma only when some value needs one and none needs a decimal point', () => {
    expect(inferNumberFormat(['2,55', '6', 'MUG', null])).toEqual({ decimalSeparator: ',' });
    expect(inferNumberFormat(['1.234,50', '2,55'])).toEqual({ decimalSeparator: ',', groupSeparator: '.' });
    expect(inferNumberFormat(['2,55', '2.5'])).toBe(PLAIN_NUMBERS);
    expect(inferNumberFormat(['2.55', '1,234.50'])).toBe(PLAIN_NUMBERS);
  });

  it('takes a grouped whole number (1,234 or 1.234), which both formats write, as no evidence', () => {
    expect(inferNumberFormat(['1,234', '1.234'])).toBe(PLAIN_NUMBERS);
    expect(inferNumberFormat(['1,234', '0,5'])).toEqual({ decimalSeparator: ',' });
    expect(inferNumberFormat([])).toBe(PLAIN_NUMBERS);
  });
});
