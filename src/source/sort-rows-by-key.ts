import { randomUUID } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sort, type AnyIterable, type Store } from 'external-merge-sort';
import type { SourceRow } from './source-row.ts';

/** A row with its key, as {@link sortRowsByKey} yields them. */
export interface KeyedRow<Row> {
  readonly key: string;
  readonly line: number;
  readonly value: Row;
}

/** Options of {@link sortRowsByKey}. */
export interface SortRowsOptions {
  /**
   * Rows sorted in memory at a time: every full run of this many rows is written to a temporary
   * file, and the files are merged as they are read back. Bounds memory whatever the source's
   * size; a source of fewer rows is sorted in memory and writes nothing. @defaultValue 10000
   */
  readonly runRows?: number;
  /** Where the run files go. @defaultValue the OS temp directory (`os.tmpdir()`: `TMPDIR`) */
  readonly directory?: string;
}

/**
 * Run files merged at once, at most: more are first merged in groups of this many into larger
 * files. Each file being read holds a buffer and the text it is parsing, and in a source in random
 * order every file is read all the time: a fixed fan-in keeps memory flat in the source's size.
 */
const MAX_OPEN_RUNS = 16;

/**
 * Bytes read from a run file at a time: small, so the text of a chunk is parsed and gone before
 * it outlives young-generation GCs (a merge takes a row from each file in turn).
 */
const READ_BYTES = 16 * 1024;

/** Characters written to a run file per write. */
const WRITE_CHARS = 256 * 1024;

/**
 * Sorts a source's rows by key, then by line (so the rows of one key keep their source order),
 * by an external merge sort (the `external-merge-sort` package): runs of `runRows` rows are
 * sorted in memory and spilled to temporary files as JSON lines, then merged. Memory stays
 * bounded by `runRows`, whatever the source's size.
 *
 * Each run file is unlinked as soon as it is created and read back through its open handle, so
 * nothing is left behind by any end of the process, a kill included.
 *
 * A row must survive JSON unchanged: strings, finite numbers, booleans, null, arrays and plain
 * objects of those (what a zod schema of a CSV or JSON source gives). A row holding anything
 * else (a Date, a bigint, a class instance, NaN) fails with a TypeError naming its line and
 * field, rather than coming back as something else.
 * @throws TypeError for a key that is not a string, or a row that JSON cannot hold.
 */
export function sortRowsByKey<Row>(rows: AsyncIterable<SourceRow<Row>>, key: (row: Row) => string, options: SortRowsOptions = {}): AsyncGenerator<KeyedRow<Row>> {
  const store = new RunFileStore<KeyedRow<Row>>(options.directory ?? tmpdir());
  return sort(keyed(rows, key) as unknown as Iterable<KeyedRow<Row>>, {
    maxSize: options.runRows ?? 10_000,
    maxFiles: MAX_OPEN_RUNS,
    comparer: byKeyThenLine,
    store,
  }) as AsyncGenerator<KeyedRow<Row>>;
}

function byKeyThenLine(a: KeyedRow<unknown>, b: KeyedRow<unknown>): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.line - b.line;
}

async function* keyed<Row>(rows: AsyncIterable<SourceRow<Row>>, key: (row: Row) => string): AsyncGenerator<KeyedRow<Row>> {
  for await (const { line, value } of rows) {
    const k = key(value);
    if (typeof k !== 'string') throw new TypeError(`line ${line}: the grouping key must be a string (got ${typeof k})`);
    checkJsonValue(value, line, '');
    yield { key: k, line, value };
  }
}

/** Throws unless `value` comes back from JSON.stringify + JSON.parse as it is. */
function checkJsonValue(value: unknown, line: number, field: string): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return;
    case 'number':
      if (Number.isFinite(value)) return;
      break;
    case 'object':
      if (value === null) return;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          // JSON writes undefined in an array as null.
          if (value[i] === undefined) throw new TypeError(`line ${line}: ${field}[${i}] holds undefined, ${SPILL_RULE}`);
          checkJsonValue(value[i], line, `${field}[${i}]`);
        }
        return;
      }
      if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
        for (const name in value) checkJsonValue((value as Record<string, unknown>)[name], line, field ? `${field}.${name}` : name);
        return;
      }
      break;
  }
  const what = typeof value === 'object' ? (value as object).constructor?.name ?? 'object' : typeof value === 'number' ? String(value) : typeof value;
  throw new TypeError(`line ${line}: ${field || 'the row'} holds ${what}, ${SPILL_RULE}`);
}

const SPILL_RULE = "which does not survive grouping over the whole source (rows are written to disk as JSON): give the row schema JSON values, or group with over: 'window'";

/**
 * The run files of one sort: created in `directory`, unlinked at once, written and read back
 * through their handles, each closed once read to its end or by `dispose` (which the sort calls
 * however it ends).
 */
class RunFileStore<T> implements Store<T> {
  readonly #directory: string;
  readonly #handles: FileHandle[] = [];
  readonly #leftover: string[] = [];

  constructor(directory: string) {
    this.#directory = directory;
  }

  async write(chunk: AnyIterable<T>): Promise<AnyIterable<T>> {
    const file = path.join(this.#directory, `idem-sort-${process.pid}-${randomUUID()}.jsonl`);
    const handle = await open(file, 'w+', 0o600);
    this.#handles.push(handle);
    // Where an open file cannot be unlinked, it is when the sort ends.
    await unlink(file).catch(() => this.#leftover.push(file));
    let text = '';
    for await (const item of chunk) {
      text += `${JSON.stringify(item)}\n`;
      if (text.length >= WRITE_CHARS) {
        await handle.write(text);
        text = '';
      }
    }
    if (text) await handle.write(text);
    return this.#readBack(handle);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.#handles.splice(0).map((handle) => handle.close().catch(() => undefined)));
    await Promise.all(this.#leftover.splice(0).map((file) => unlink(file).catch(() => undefined)));
  }

  /** A run file's items, read from its start; the file is closed once read to its end. */
  async *#readBack(handle: FileHandle): AsyncGenerator<T> {
    let rest = '';
    for await (const chunk of handle.createReadStream({ start: 0, autoClose: false, encoding: 'utf8', highWaterMark: READ_BYTES })) {
      // JSON.stringify never writes a raw line break: each line is one item.
      const text = rest + (chunk as string);
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        yield JSON.parse(text.slice(start, end)) as T;
        start = end + 1;
      }
      rest = text.slice(start);
    }
    this.#handles.splice(this.#handles.indexOf(handle), 1);
    await handle.close();
  }
}
