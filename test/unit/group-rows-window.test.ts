import { describe, expect, it } from 'vitest';
import { groupRows } from '../../src/source/group-rows.ts';
import { seededRandom } from '../../src/prove/seeded-random.ts';

/** The plain algorithm groupRows implements (scan the open groups after every row). */
function reference(keys: string[], idleRows: number): [string, number, number[]][] {
  const out: [string, number, number[]][] = [];
  const open = new Map<string, { line: number; rows: number[]; lastSeen: number }>();
  keys.forEach((key, i) => {
    const index = i + 1;
    const entry = open.get(key);
    if (entry) {
      entry.rows.push(i);
      entry.lastSeen = index;
      open.delete(key);
      open.set(key, entry);
    } else {
      open.set(key, { line: i + 2, rows: [i], lastSeen: index });
    }
    for (const [k, g] of [...open]) {
      if (index - g.lastSeen < idleRows) break;
      open.delete(k);
      out.push([k, g.line, g.rows]);
    }
  });
  for (const [k, g] of open) out.push([k, g.line, g.rows]);
  return out;
}

async function* source(keys: string[]) {
  for (const [i, key] of keys.entries()) yield { line: i + 2, value: { key, n: i } };
}

describe('groupRows window', () => {
  it('closes exactly the groups the plain algorithm closes, in the same order, for any interleaving', async () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = seededRandom(seed);
      const idleRows = 1 + Math.floor(random() * 6);
      const alphabet = 2 + Math.floor(random() * 8);
      // Runs of one key (as invoice files have them) mixed with interleaved and returning keys.
      const keys: string[] = [];
      while (keys.length < 60) {
        const key = `k${Math.floor(random() * alphabet)}`;
        const run = 1 + Math.floor(random() * 4);
        for (let r = 0; r < run; r++) keys.push(key);
      }
      const got = [];
      for await (const g of groupRows(source(keys), { key: (r) => r.key, over: 'window', idleRows })) got.push([g.key, g.line, g.rows.map((r) => r.n)]);
      expect(got, `seed ${seed}, idleRows ${idleRows}`).toEqual(reference(keys, idleRows));
    }
  });
});
