import { describe, expect, it } from 'vitest';
import { HighWaterMark } from '../../src/source/high-water-mark.ts';

const markOf = (type: 'instant' | 'integer', from: string | undefined, cursors: unknown[]): string | undefined => {
  const mark = new HighWaterMark(type, from);
  cursors.forEach((cursor, i) => mark.see(cursor, `item ${i + 1}`));
  return mark.value;
};

describe('HighWaterMark', () => {
  it('keeps the greatest instant as the item gave it, comparing instants across offsets', () => {
    // 10:30+02:00 is 08:30Z: before 09:00Z, whatever the text says.
    expect(markOf('instant', undefined, ['2026-12-01T09:00:00Z', '2026-12-01T10:30:00+02:00', '2026-12-01T08:59:59.999Z'])).toBe('2026-12-01T09:00:00Z');
    expect(markOf('instant', undefined, ['2026-12-01T10:30:00+02:00', '2026-12-01T08:31:00Z'])).toBe('2026-12-01T08:31:00Z');
    // The same instant written twice: the first is kept.
    expect(markOf('instant', undefined, ['2026-12-01T09:00:00.000Z', '2026-12-01T10:00:00+01:00'])).toBe('2026-12-01T09:00:00.000Z');
  });

  it('starts from the stored mark, which an older item does not move back', () => {
    expect(markOf('instant', '2026-12-01T09:00:00Z', ['2026-11-30T09:00:00Z'])).toBe('2026-12-01T09:00:00Z');
    expect(markOf('instant', '2026-12-01T09:00:00Z', [])).toBe('2026-12-01T09:00:00Z');
    expect(markOf('instant', undefined, [])).toBeUndefined();
  });

  it('compares integer cursors as numbers of any size, given as numbers or digits', () => {
    expect(markOf('integer', '9', [10, '8', 11])).toBe('11');
    expect(markOf('integer', undefined, ['99999999999999999999', '100000000000000000000'])).toBe('100000000000000000000');
  });

  it('refuses a cursor that is not of its type, naming the item and the value', () => {
    expect(() => markOf('instant', undefined, ['2026-12-01T09:00:00Z', '2026-12-01'])).toThrow(
      'item 2: the incremental cursor must be an ISO 8601 date and time with its offset, such as 2026-12-01T09:00:00Z (got "2026-12-01")',
    );
    expect(() => markOf('instant', undefined, ['2026-12-01T09:00:00'])).toThrow('item 1: the incremental cursor must be an ISO 8601 date and time with its offset');
    expect(() => markOf('instant', undefined, ['2026-02-30T09:00:00Z'])).toThrow('(got "2026-02-30T09:00:00Z")');
    expect(() => markOf('integer', undefined, [1.5])).toThrow('item 1: the incremental cursor must be an integer (got 1.5)');
    expect(() => new HighWaterMark('integer', '2026-12-01T09:00:00Z')).toThrow('the mark in source_marks (a run with --force reads everything and replaces it): the incremental cursor must be an integer');
  });
});
