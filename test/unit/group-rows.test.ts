import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { groupRows, type GroupRowsOptions } from '../../src/source/group-rows.ts';
import { RereadableRows } from '../../src/source/rereadable-rows.ts';
import { seededRandom } from '../../src/prove/seeded-random.ts';
import { sortRowsByKey } from '../../src/source/sort-rows-by-key.ts';

async function* source<T>(values: T[]) {
  for (const [i, value] of values.entries()) yield { line: i + 2, value };
}

const rowsOf = (keys: string[]) => keys.map((key, n) => ({ key, n }));

async function groups(keys: string[], options: Partial<GroupRowsOptions<{ key: string; n: number }>> = {}) {
  const out = [];
  for await (const g of groupRows(source(rowsOf(keys)), { key: (r) => r.key, ...options })) out.push([g.key, g.line, g.rows.map((r) => r.n)]);
  return out;
}

/** Open file descriptors of this process, where the OS lists them. */
const openFiles = (): number | undefined => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : undefined);

describe('groupRows over the whole source (the default)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'idem-group-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('puts every row of a key in one group wherever it is: groups in key order, rows in source order', async () => {
    expect(await groups(['b', 'a', 'b', 'c', 'a'])).toEqual([
      ['a', 3, [1, 4]],
      ['b', 2, [0, 2]],
      ['c', 5, [3]],
    ]);
    expect(await groups([])).toEqual([]);
  });

  it('spills sorted runs to disk and merges them: the same groups as in memory, for any order and run size', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const random = seededRandom(seed);
      const keys = Array.from({ length: 1 + Math.floor(random() * 120) }, () => `k${Math.floor(random() * 15)}`);
      const expected = [...new Set(keys)].sort().map((key) => {
        const at = keys.flatMap((k, i) => (k === key ? [i] : []));
        return [key, at[0]! + 2, at];
      });
      const runRows = 1 + Math.floor(random() * 10);
      expect(await groups(keys, { runRows }), `seed ${seed}, runRows ${runRows}`).toEqual(expected);
    }
  });

  it('merges more run files than it opens at once (64) in more than one pass, with the same groups', async () => {
    const keys = Array.from({ length: 300 }, (_, i) => `k${(i * 37) % 23}`);
    const expected = [...new Set(keys)].sort().map((key) => {
      const at = keys.flatMap((k, i) => (k === key ? [i] : []));
      return [key, at[0]! + 2, at];
    });
    // 300 runs of 1 row: five groups of at most 64 are merged into files first, then those.
    expect(await groups(keys, { runRows: 1 })).toEqual(expected);
  });

  it('keeps no run file on disk, even while it reads them back, and closes them when the reader stops early', async () => {
    const before = openFiles();
    const keys = Array.from({ length: 50 }, (_, i) => `k${(i * 7) % 13}`);
    const sorted = sortRowsByKey(source(rowsOf(keys)), (r) => r.key, { runRows: 4, directory: dir });
    const first = await sorted.next();
    expect(first.value).toEqual({ key: 'k0', line: 2, value: { key: 'k0', n: 0 } });
    // 12 full runs were written and are open for the merge (the last 2 rows stay in memory), and the directory holds none of them.
    expect(readdirSync(dir)).toEqual([]);
    if (before !== undefined) expect(openFiles()).toBeGreaterThanOrEqual(before + 12);
    await sorted.return(undefined);
    if (before !== undefined) expect(openFiles()).toBe(before);
  });

  it('gives back every row as JSON would, its fields in the same order, whatever its shape: through run files and from memory', async () => {
    const rows: unknown[] = [
      {}, // first, before any shape: an object, not an array
      { key: 'b', n: 1, note: 'x' },
      { n: 2, key: 'a', note: null }, // the same names in another order: another shape
      { key: 'a', n: 3, note: 'y', lines: [{ q: 1, p: '2.50' }, { q: -1 }] },
      { key: 'c', n: 4, gone: undefined, note: 'JSON leaves gone out' },
      JSON.parse('{"key":"b","__proto__":{"polluted":true},"n":5}'),
      { key: 'c', 2: 'two', 1: 'one', n: 6 },
      Object.assign(Object.create(null), { key: 'a', n: 7 }),
      { key: 'b', n: 8, note: 'x' },
      { key: 'a', n: 9, text: 'tab\there, line\nbreak, "quoted", ü, 😀' },
    ];
    for (const runRows of [2, 100]) {
      const out = [];
      const byKey = (r: unknown) => `${(r as { key?: string }).key ?? ''}`;
      for await (const { value } of sortRowsByKey(source(rows), byKey, { runRows, directory: dir })) out.push(value);
      const expected = rows
        .map((r, i) => ({ r, i }))
        .sort((x, y) => (byKey(x.r) < byKey(y.r) ? -1 : byKey(x.r) > byKey(y.r) ? 1 : x.i - y.i))
        .map(({ r }) => JSON.parse(JSON.stringify(r)));
      expect(out, `runRows ${runRows}`).toEqual(expected);
      expect(out.map((r) => JSON.stringify(r)), `runRows ${runRows}: field order`).toEqual(expected.map((r) => JSON.stringify(r)));
      expect(out.map((r) => Object.keys(r as object)), `runRows ${runRows}: own fields`).toEqual(expected.map((r) => Object.keys(r)));
      expect(Object.getPrototypeOf(out.find((r) => (r as { n: number }).n === 5))).toBe(Object.prototype);
    }
  });

  it('gives back rows whose field names vary row by row, past the shapes a sort keeps (1,000)', async () => {
    const rows = Array.from({ length: 1_500 }, (_, i) => ({ key: `k${i % 7}`, [`day${i}`]: i, total: i * 2 }));
    const out = [];
    for await (const { value } of sortRowsByKey(source(rows), (r) => r.key, { runRows: 100, directory: dir })) out.push(value);
    const expected = rows.map((r, i) => ({ r, i })).sort((x, y) => (x.r.key < y.r.key ? -1 : x.r.key > y.r.key ? 1 : x.i - y.i)).map(({ r }) => r);
    expect(out.map((r) => JSON.stringify(r))).toEqual(expected.map((r) => JSON.stringify(r)));
  });

  it('refuses a row that JSON cannot carry to disk and back, naming its line and field', async () => {
    const rows = [{ key: 'a', at: new Date(0) }];
    await expect(groupRows(source(rows), { key: (r) => r.key }).next()).rejects.toThrow(
      "line 2: at holds Date, which does not survive grouping over the whole source (rows are written to disk as JSON): give the row schema JSON values, or group with over: 'window'",
    );
    const nested = [{ key: 'a', lines: [{ n: 1 }, { n: Number.NaN }] }];
    await expect(groupRows(source(nested), { key: (r) => r.key }).next()).rejects.toThrow('line 2: lines[1].n holds NaN');
    const window = groupRows(source(rows), { key: (r) => r.key, over: 'window' });
    expect((await window.next()).value).toEqual({ key: 'a', line: 2, rows: rows });
  });
});

describe('groupRows over the whole source, on rows idem can read again (a file)', () => {
  /** The groups of a first pass, and its request to read again (undefined: the groups stand). */
  async function firstPass(keys: string[]) {
    const rows = new RereadableRows(source(rowsOf(keys)));
    const out = [];
    for await (const g of groupRows(rows, { key: (r) => r.key })) out.push([g.key, g.line, g.rows.map((r) => r.n)]);
    return { groups: out, reread: rows.rereadReason };
  }

  it('groups a source whose keys come together as it reads, without the sort: groups in source order', async () => {
    // The sort would give key order (a, b, c); source order shows no sort ran.
    expect(await firstPass(['c', 'c', 'a', 'b', 'b'])).toEqual({
      groups: [
        ['c', 2, [0, 1]],
        ['a', 4, [2]],
        ['b', 5, [3, 4]],
      ],
      reread: undefined,
    });
    expect(await firstPass([])).toEqual({ groups: [], reread: undefined });
  });

  it('lets a key come back while its group is one of the 4 opened last (a credit note between two lines of an invoice)', async () => {
    expect(await firstPass(['a', 'a', 'b', 'c', 'd', 'a', 'e'])).toEqual({
      groups: [
        ['a', 2, [0, 1, 5]],
        ['b', 4, [2]],
        ['c', 5, [3]],
        ['d', 6, [4]],
        ['e', 8, [6]],
      ],
      reread: undefined,
    });
  });

  it('stops at the first key that comes back after its group ended, without an error, and asks for the source to be read again', async () => {
    // The pass ends as a short source would (a COPY in a transaction is not aborted); the caller throws its groups away.
    expect(await firstPass(['a', 'b', 'c', 'd', 'e', 'a', 'f'])).toEqual({
      groups: [['a', 2, [0]]],
      reread: 'the source is not grouped by key: "a" comes back on line 7 after its rows from line 2 ended',
    });
  });

  it('hands a source of more than 250,000 keys to the sort, whose memory stays bounded', async () => {
    const keys = Array.from({ length: 250_010 }, (_, i) => `k${i}`);
    const pass = await firstPass(keys);
    expect([pass.groups.length, pass.reread]).toEqual([250_001, "the source has more than 250000 keys, too many to check that each key's rows come together (line 250007)"]);
    // Not marked: the same source through the sort, in key order.
    expect((await groups(keys.slice(0, 3))).map(([key]) => key)).toEqual(['k0', 'k1', 'k2']);
  });

  it('refuses a row that JSON cannot carry as the sort does, so a pipeline does not work on one file and fail on the next', async () => {
    const rows = [{ key: 'a', at: new Date(0) }];
    await expect(groupRows(new RereadableRows(source(rows)), { key: (r) => r.key }).next()).rejects.toThrow(
      "line 2: at holds Date, which does not survive grouping over the whole source (rows are written to disk as JSON): give the row schema JSON values, or group with over: 'window'",
    );
  });
});

describe('groupRows within a window', () => {
  it('groups interleaved rows of one key, as real invoice files interleave them', async () => {
    expect(await groups(['a', 'a', 'b', 'a', 'c'], { over: 'window' })).toEqual([
      ['b', 4, [2]],
      ['a', 2, [0, 1, 3]],
      ['c', 6, [4]],
    ]);
  });

  it('closes a group after idleRows rows without its key, so memory stays bounded', async () => {
    // With a window of 2, "a" closes before it returns: it comes out twice, for the duplicate-key rule to judge.
    expect(await groups(['a', 'b', 'c', 'a'], { over: 'window', idleRows: 2 })).toEqual([
      ['a', 2, [0]],
      ['b', 3, [1]],
      ['c', 4, [2]],
      ['a', 5, [3]],
    ]);
  });
});
