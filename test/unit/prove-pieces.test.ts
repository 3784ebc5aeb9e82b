import { describe, expect, it } from 'vitest';
import { compareTargetSnapshots } from '../../src/prove/compare-target-snapshots.ts';
import { formatProveReport } from '../../src/prove/format-prove-report.ts';
import { seededRandom } from '../../src/prove/seeded-random.ts';
import { undefinedBodyFields as undefinedFields } from '../../src/destination/undefined-body-fields.ts';
import { RawJson } from '../../src/http/raw-json.ts';

describe('idem prove, the pure pieces', () => {
  it('seededRandom repeats its sequence for a seed, and differs between seeds', () => {
    const take = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
    expect(take(42)).toEqual(take(42));
    expect(take(42)).not.toEqual(take(43));
    expect(take(7).every((n) => n >= 0 && n < 1)).toBe(true);
  });

  it('compareTargetSnapshots says what differs, naming the first keys', () => {
    const expected = new Map([['s 1', '{"a":1}'], ['s 2', '{"a":2}'], ['s 3', '{"a":3}']]);
    expect(compareTargetSnapshots(expected, new Map(expected))).toEqual({ equal: true, text: 'rows 3 = 3' });
    const actual = new Map([['s 1', '{"a":1}'], ['s 2', '{"a":9}'], ['s 4', '{"a":4}']]);
    expect(compareTargetSnapshots(expected, actual)).toEqual({ equal: false, text: 'rows 3 ≠ 3, 1 missing (s 3), 1 extra (s 4), 1 changed (s 2)' });
  });

  it('formatProveReport prints the table and a verdict that counts the failures', () => {
    const report = formatProveReport([
      { name: 'clean run', result: 'pass', counts: 'rows 2', ms: 1 },
      { name: 'kill after POST 1 of 2, rerun', result: 'fail', counts: 'remote 3 ≠ 2, 1 duplicated (A ×2)', ms: 1 },
      { name: 'kill during post, rerun', result: 'skip', counts: 'no destinations', ms: 0 },
    ]);
    expect(report).toBe(
      [
        'check                          result  counts',
        'clean run                      pass    rows 2',
        'kill after POST 1 of 2, rerun  fail    remote 3 ≠ 2, 1 duplicated (A ×2)',
        'kill during post, rerun        skip    no destinations',
        '',
        'FAILED: 1 of 3 checks',
        '',
      ].join('\n'),
    );
  });
});

describe('undefinedFields: where a request body holds undefined (JSON would drop it)', () => {
  it('names each path, nested objects and arrays included, and looks inside nothing else', () => {
    expect(undefinedFields({ name: 'a', hp: undefined, lines: [{ price: '1.00' }, { price: undefined }], at: null })).toEqual(['body.hp', 'body.lines[1].price']);
    expect(undefinedFields(undefined)).toEqual(['body']);
    expect(undefinedFields({ name: 'a', when: new Date(0), lines: new RawJson('[{"price":null}]'), n: 0, empty: '' })).toEqual([]);
  });
});
