import type { SourceRow } from './source-row.ts';

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
   * A group is closed once this many rows have passed without one for its key. Bounds memory to
   * the groups seen within the window, whatever the input's size. A key that comes back after
   * its group closed starts a second group with the same key, which the pipeline's duplicate-key
   * rule then judges (so a too-small window fails loudly under `error`, never merges silently).
   * @defaultValue 10000
   */
  readonly idleRows?: number;
}

/**
 * Groups rows by key for records built from several source rows (an invoice from its lines).
 * Lines of one key need not be adjacent (real files interleave them), only within `idleRows`.
 */
export async function* groupRows<Row>(rows: AsyncIterable<SourceRow<Row>>, options: GroupRowsOptions<Row>): AsyncGenerator<RowGroup<Row>> {
  const idleRows = options.idleRows ?? 10_000;
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
    const key = options.key(row.value);
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
