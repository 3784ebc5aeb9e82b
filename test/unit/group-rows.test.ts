import { describe, expect, it } from 'vitest';
import { groupRows } from '../../src/source/group-rows.ts';

async function* source(keys: string[]) {
  for (const [i, key] of keys.entries()) yield { line: i + 2, value: { key, n: i } };
}

async function groups(keys: string[], idleRows?: number) {
  const out = [];
  for await (const g of groupRows(source(keys), { key: (r) => r.key, ...(idleRows ? { idleRows } : {}) })) {
    out.push([g.key, g.line, g.rows.map((r) => r.n)]);
  }
  return out;
}

describe('groupRows', () => {
  it('groups interleaved rows of one key, as real invoice files interleave them', async () => {
    expect(await groups(['a', 'a', 'b', 'a', 'c'])).toEqual([
      ['b', 4, [2]],
      ['a', 2, [0, 1, 3]],
      ['c', 6, [4]],
    ]);
  });

  it('closes a group after idleRows rows without its key, so memory stays bounded', async () => {
    // With a window of 2, "a" closes before it returns: it comes out twice, for the duplicate-key rule to judge.
    expect(await groups(['a', 'b', 'c', 'a'], 2)).toEqual([
      ['a', 2, [0]],
      ['b', 3, [1]],
      ['c', 4, [2]],
      ['a', 5, [3]],
    ]);
  });
});
