import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { copyTextLine } from '../../src/dialect/postgres/postgres-bulk-load.ts';
import { loadDataLine } from '../../src/dialect/mysql/mysql-bulk-load.ts';
import { rowHash, rowHashOfJson } from '../../src/pipeline/row-hash.ts';

describe('rowHashOfJson', () => {
  it('hashes the same text as rowHash, so hashes stored before stay valid', () => {
    const values = ['invoice', null, 'United Kingdom', '2010-12-01T08:26:00.000Z', 7, '139.120', [{ stock_code: '85123A', description: 'A "quoted"\\ one', quantity: 6 }], true];
    const expected = createHash('sha256').update(JSON.stringify(['online-retail', '536365', ...values])).digest('hex');
    expect(rowHash('online-retail', '536365', values)).toBe(expected);
    expect(rowHashOfJson('online-retail', '536365', values.map((v) => JSON.stringify(v)))).toBe(expected);
  });
});

describe('bulk-load text lines', () => {
  it('copyTextLine writes NULL as \\N, keeps the empty string, escapes backslash, tab, CR and LF', () => {
    expect(copyTextLine([1, null, '', 'a\tb', 'x\\y', 'l1\nl2\r', '{"a":"\\"q\\""}', true])).toBe(
      '1\t\\N\t\ta\\tb\tx\\\\y\tl1\\nl2\\r\t{"a":"\\\\"q\\\\""}\ttrue\n',
    );
  });

  it('loadDataLine escapes NUL too, and leaves plain text as it is', () => {
    expect(loadDataLine(['plain text, "quoted"', null, '', 'a\0b', 'c\\d'])).toBe('plain text, "quoted"\t\\N\t\ta\\0b\tc\\\\d\n');
  });
});
