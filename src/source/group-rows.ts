import { checkJsonRow } from './check-json-row.ts';
import { RereadableRows } from './rereadable-rows.ts';
import { sortRowsByKey, type KeyedRow } from './sort-rows-by-key.ts';
import type { SourceRow } from './source-row.ts';

/**
 * Keys remembered by a pass that assumes grouped rows, at most (about 70 bytes each): a source
 * with more keys is grouped by the sort, whose memory stays bounded whatever the source's size.
 */
const MAX_ENDED_KEYS = 250_000;

/** Groups a pass that assumes grouped rows keeps open: see `groupAssumingGrouped`. */
const OPEN_GROUPS = 4;

/** Rows that share a key, with the line of the first one. */
export interface RowGroup<Row> {
  readonly key: string;
  readonly line: number;
  readonly rows: Row[];
}

/** Options of {@link groupRows}. */
export interface GroupRowsOptions<Row> {
  /** The key rows are grouped by, for example the invoice number. */
  readonly key: (row: Row) => string;
  /**
   * - `source`: every row of a key in one group, wherever the rows are in the source (an export
   *   sorted by another column). The rows are sorted by key on disk first (see `sortRowsByKey`:
   *   memory stays bounded by `runRows`), so groups come out in key order, each group's rows in
   *   source order. Rows must be JSON values (what a zod schema of a CSV or JSON source gives).
   *   A file source read by idem is first read as if each key's rows came together (most
   *   exports are), with no sort: groups come out in source order, and the first key that
   *   comes back after its group ended (or more than 250,000 keys) stops that pass, and idem
   *   reads the file again through the sort. Either way the records are the same.
   * - `window`: a group is closed once `idleRows` rows have passed without one for its key, and
   *   groups come out as they close. Faster, and for sources that keep a key's rows within
   *   `idleRows` of each other only: a key that comes back after its group closed starts a second
   *   group with the same key, which the pipeline's duplicate-key rule then judges (so a window
   *   too small fails loudly under `error`, never merges silently).
   * @defaultValue 'source'
   */
  readonly over?: 'source' | 'window';
  /** `over: 'window'`: the rows after which a group without a new row closes. @defaultValue 10000 */
  readonly idleRows?: number;
  /** `over: 'source'`: rows sorted in memory at a time (see `SortRowsOptions`). @defaultValue 10000 */
  readonly runRows?: number;
}

/**
 * Groups rows by key for records built from several source rows (an invoice from its lines):
 * over the whole source by default, or within a window of rows (see `GroupRowsOptions.over`).
 * Each group's `line` is its first row's.
 * @throws TypeError (`over: 'source'`) for a row that JSON cannot hold, naming its line and field.
 */
export function groupRows<Row>(rows: AsyncIterable<SourceRow<Row>>, options: GroupRowsOptions<Row>): AsyncGenerator<RowGroup<Row>> {
  if (options.over === 'window') return groupWithinWindow(rows, options.key, options.idleRows ?? 10_000);
  if (rows instanceof RereadableRows) return groupAssumingGrouped(rows, options.key);
  return groupAdjacent(sortRowsByKey(rows, options.key, options.runRows === undefined ? {} : { runRows: options.runRows }));
}

/**
 * Groups rows that the caller can read again (`RereadableRows`) as they come, assuming each
 * key's rows are close together: the sort's work (every row written to disk as JSON and read
 * back) is skipped for a source that is grouped already. The `OPEN_GROUPS` groups opened last
 * stay open, so a key's rows may be split by rows of up to 3 other keys (the UCI year file has
 * one such place: a credit note between two lines of an invoice) and still make one group. Rows
 * are checked as the sort would check them (`checkJsonRow`).
 *
 * At the first key that comes back after its group ended, or past MAX_ENDED_KEYS keys, it stops
 * (yielding no more groups) and asks the caller to read the source again (`rows.reread`), as
 * plain rows, which go through the sort.
 */
async function* groupAssumingGrouped<Row>(rows: RereadableRows<Row>, keyOf: (row: Row) => string): AsyncGenerator<RowGroup<Row>> {
  // Open groups, oldest first, the last touched one in `group` (an array: with a Map here,
  // grouping the year alone peaked at 236 MB RSS instead of 120 MB); each ended group's key and
  // first line.
  const open: RowGroup<Row>[] = [];
  const ended = new Map<string, number>();
  let group: RowGroup<Row> | undefined;
  for await (const { line, value } of rows) {
    const key = keyOf(value);
    if (typeof key !== 'string') throw new TypeError(`line ${line}: the grouping key must be a string (got ${typeof key})`);
    checkJsonRow(value, line);
    if (group?.key !== key) group = open.findLast((candidate) => candidate.key === key);
    if (group) {
      group.rows.push(value);
      continue;
    }
    const firstLine = ended.get(key);
    if (firstLine !== undefined || ended.size > MAX_ENDED_KEYS) {
      rows.reread(
        firstLine === undefined
          ? `the source has more than ${MAX_ENDED_KEYS} keys, too many to check that each key's rows come together (line ${line})`
          : `the source is not grouped by key: ${JSON.stringify(key)} comes back on line ${line} after its rows from line ${firstLine} ended`,
      );
      return;
    }
    group = { key, line, rows: [value] };
    open.push(group);
    if (open.length > OPEN_GROUPS) {
      const done = open.shift()!;
      ended.set(done.key, done.line);
      yield done;
    }
  }
  yield* open;
}

/** Groups rows that come sorted by key: a group ends where the key changes. */
async function* groupAdjacent<Row>(rows: AsyncIterable<KeyedRow<Row>>): AsyncGenerator<RowGroup<Row>> {
  let group: RowGroup<Row> | undefined;
  for await (const { key, line, value } of rows) {
    if (group?.key === key) {
      group.rows.push(value);
      continue;
    }
    if (group) yield group;
    group = { key, line, rows: [value] };
  }
  if (group) yield group;
}

/**
 * Groups rows whose keys come back within `idleRows` of each other. Bounds memory to the groups
 * seen within the window, whatever the input's size.
 */
async function* groupWithinWindow<Row>(rows: AsyncIterable<SourceRow<Row>>, keyOf: (row: Row) => string, idleRows: number): AsyncGenerator<RowGroup<Row>> {
  // Insertion order = order of last activity: a touched group is moved to the end, so the first
  // group is the one idle longest, and no group is due before `nextDueAt` (the first one's
  // last row + idleRows). Checked per row without iterating the map, which allocates.
  const open = new Map<string, { group: RowGroup<Row>; lastSeen: number }>();
  let lastKey: string | undefined;
  let last: { group: RowGroup<Row>; lastSeen: number } | undefined;
  let nextDueAt = idleRows + 1;
  let index = 0;
  for await (const row of rows) {
    index += 1;
    const key = keyOf(row.value);
    // Lines of one key mostly come together: the last touched group is already at the end.
    let entry = key === lastKey ? last : open.get(key);
    if (entry) {
      entry.group.rows.push(row.value);
      entry.lastSeen = index;
      if (key !== lastKey) {
        open.delete(key);
        open.set(key, entry);
      }
    } else {
      entry = { group: { key, line: row.line, rows: [row.value] }, lastSeen: index };
      open.set(key, entry);
      if (open.size === 1) nextDueAt = index + idleRows;
    }
    last = entry;
    lastKey = key;
    if (index < nextDueAt) continue;
    for (const [oldest, candidate] of open) {
      if (index - candidate.lastSeen < idleRows) {
        nextDueAt = candidate.lastSeen + idleRows;
        break;
      }
      open.delete(oldest);
      if (oldest === lastKey) {
        lastKey = undefined;
        last = undefined;
      }
      yield candidate.group;
    }
  }
  for (const { group } of open.values()) yield group;
}
