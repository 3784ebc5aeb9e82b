import { randomUUID } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnyIterable, Store } from 'external-merge-sort';
import { DiskFullError } from '../errors/disk-full-error.ts';
import { checkJsonRow } from './check-json-row.ts';
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
 * files. Each file being read holds a buffer and the text it is parsing (READ_BYTES: 64 files
 * about 2 MB), and in a source in random order every file is read all the time: a fixed fan-in
 * keeps memory flat in the source's size. 64 merges a year's file (541,909 rows: 55 runs of
 * 10,000) in one pass; at 16 every row was written and read back twice, and grouping the year
 * took 5.7-6.8 s of CPU instead of 4.7-5.0 s (bench/floors/group-rows-only.js).
 */
const MAX_OPEN_RUNS = 64;

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
 * sorted in memory and spilled to temporary files, then merged. Each row is written as JSON once
 * (a plain object as the array of its values) and parsed once, whether it stays in memory or
 * goes through several merge passes. Memory stays bounded by `runRows` and the merge's fan-in,
 * whatever the source's size.
 *
 * Each run file is unlinked as soon as it is created and read back through its open handle, so
 * nothing is left behind by any end of the process, a kill included.
 *
 * A row must survive JSON unchanged: strings, finite numbers, booleans, null, arrays and plain
 * objects of those (what a zod schema of a CSV or JSON source gives). A row holding anything
 * else (a Date, a bigint, a class instance, NaN) fails with a TypeError naming its line and
 * field, rather than coming back as something else.
 * @throws TypeError for a key that is not a string, or a row that JSON cannot hold.
 * @throws DiskFullError when the run files' directory is full (ENOSPC, EDQUOT), naming it (and
 *   `TMPDIR` when it is the OS temp directory) and the sort.
 */
export async function* sortRowsByKey<Row>(rows: AsyncIterable<SourceRow<Row>>, key: (row: Row) => string, options: SortRowsOptions = {}): AsyncGenerator<KeyedRow<Row>> {
  // Loaded on first use, not with the public API: a no-op run imports the pipeline module (which
  // imports groupRows) but never sorts.
  const { sort } = await import('external-merge-sort');
  const codec = new RowCodec();
  const sorted = sort(serialised(rows, key, codec) as unknown as Iterable<SortItem>, {
    maxSize: options.runRows ?? 10_000,
    maxFiles: MAX_OPEN_RUNS,
    comparer: byKeyThenLine,
    store: new RunFileStore(options.directory ?? tmpdir(), options.directory === undefined ? `the temporary directory TMPDIR=${tmpdir()}` : `the sort's directory ${options.directory}`),
  }) as AsyncGenerator<SortItem>;
  for await (const { key: k, line, shape, json } of sorted) yield { key: k, line, value: codec.decode(shape, json) as Row };
}

/**
 * What is sorted: a row's key, its line, and its value as text (see {@link RowCodec}), written
 * once and read once however many merge passes it goes through (and smaller in memory than the
 * object).
 */
interface SortItem {
  readonly key: string;
  readonly line: number;
  /** The value's shape in its sort's {@link RowCodec}, or -1: `json` is the whole value's JSON. */
  readonly shape: number;
  readonly json: string;
}

/**
 * A row's value as the sort carries it, and back. A plain object is written as the JSON array of
 * its values, in the order of its field names, which are kept once per shape (the names in
 * order) for the whole sort: the year's 541,909 rows have one shape, and their names were half
 * of their JSON (the year's run files: 121 MB with them, 69 MB without).
 * Anything else, and an object with a field whose value JSON leaves out (`undefined`) or named
 * `__proto__` (which an assignment would take for the prototype), is written as its JSON. Either
 * way the value read back equals `JSON.parse(JSON.stringify(value))`, its fields in the same
 * order.
 */
class RowCodec {
  /**
   * Shapes kept, at most: rows whose field names vary (a JSON source keyed by dates, say) would
   * otherwise keep one per row. A row of a shape past them is written as its JSON.
   */
  static readonly MAX_SHAPES = 1_000;

  /** Each shape's field names, by shape number. */
  readonly #shapes: (readonly string[])[] = [];
  readonly #shapeNumbers = new Map<string, number>();
  /** The last shape written (-1: none yet): consecutive rows mostly share it. */
  #lastShape = -1;

  encode(value: unknown): { shape: number; json: string } {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { shape: -1, json: JSON.stringify(value) };
    const names = Object.keys(value);
    const values: unknown[] = new Array(names.length);
    const last = this.#shapes[this.#lastShape];
    let same = last !== undefined && names.length === last.length;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const field = (value as Record<string, unknown>)[name];
      if (field === undefined || name === '__proto__') return { shape: -1, json: JSON.stringify(value) };
      if (same && last![i] !== name) same = false;
      values[i] = field;
    }
    const shape = same ? this.#lastShape : this.#shapeOf(names);
    if (shape === undefined) return { shape: -1, json: JSON.stringify(value) };
    return { shape, json: JSON.stringify(values) };
  }

  decode(shape: number, json: string): unknown {
    if (shape < 0) return JSON.parse(json);
    const names = this.#shapes[shape]!;
    const values = JSON.parse(json) as unknown[];
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
    return row;
  }

  /** The shape of these names, kept as the last one; undefined past {@link RowCodec.MAX_SHAPES}. */
  #shapeOf(names: readonly string[]): number | undefined {
    const id = JSON.stringify(names);
    let shape = this.#shapeNumbers.get(id);
    if (shape === undefined) {
      if (this.#shapes.length >= RowCodec.MAX_SHAPES) return undefined;
      shape = this.#shapes.push(names) - 1;
      this.#shapeNumbers.set(id, shape);
    }
    this.#lastShape = shape;
    return shape;
  }
}

function byKeyThenLine(a: SortItem, b: SortItem): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.line - b.line;
}

async function* serialised<Row>(rows: AsyncIterable<SourceRow<Row>>, key: (row: Row) => string, codec: RowCodec): AsyncGenerator<SortItem> {
  for await (const { line, value } of rows) {
    const k = key(value);
    if (typeof k !== 'string') throw new TypeError(`line ${line}: the grouping key must be a string (got ${typeof k})`);
    checkJsonRow(value, line);
    const { shape, json } = codec.encode(value);
    yield { key: k, line, shape, json };
  }
}


/**
 * The run files of one sort: created in `directory`, unlinked at once, written and read back
 * through their handles, each closed once read to its end or by `dispose` (which the sort calls
 * however it ends). One item a line: its key as JSON, its line, its shape and its value's text,
 * separated by tabs (JSON.stringify writes no raw tab or line break, so neither splits an item).
 */
class RunFileStore implements Store<SortItem> {
  readonly #directory: string;
  /** The directory as a message names it: `the temporary directory TMPDIR=/tmp`. */
  readonly #named: string;
  readonly #handles: FileHandle[] = [];
  readonly #leftover: string[] = [];

  constructor(directory: string, named: string) {
    this.#directory = directory;
    this.#named = named;
  }

  /** Writes a run file; a full directory is a {@link DiskFullError} naming it and the sort. */
  async write(chunk: AnyIterable<SortItem>): Promise<AnyIterable<SortItem>> {
    try {
      return await this.#write(chunk);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOSPC' && code !== 'EDQUOT') throw error;
      throw new DiskFullError(`${this.#named} is full (${code}) while sorting the source's rows by key through files there`, 'free space there or point TMPDIR elsewhere, then run the same command again', error);
    }
  }

  async #write(chunk: AnyIterable<SortItem>): Promise<AnyIterable<SortItem>> {
    const file = path.join(this.#directory, `idem-sort-${process.pid}-${randomUUID()}.jsonl`);
    const handle = await open(file, 'w+', 0o600);
    this.#handles.push(handle);
    // Where an open file cannot be unlinked, it is when the sort ends.
    await unlink(file).catch(() => this.#leftover.push(file));
    let text = '';
    for await (const item of chunk) {
      text += `${JSON.stringify(item.key)}\t${item.line}\t${item.shape}\t${item.json}\n`;
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
  async *#readBack(handle: FileHandle): AsyncGenerator<SortItem> {
    let rest = '';
    for await (const chunk of handle.createReadStream({ start: 0, autoClose: false, encoding: 'utf8', highWaterMark: READ_BYTES })) {
      const text = rest + (chunk as string);
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        const keyEnd = text.indexOf('\t', start);
        const lineEnd = text.indexOf('\t', keyEnd + 1);
        const shapeEnd = text.indexOf('\t', lineEnd + 1);
        yield { key: JSON.parse(text.slice(start, keyEnd)) as string, line: Number(text.slice(keyEnd + 1, lineEnd)), shape: Number(text.slice(lineEnd + 1, shapeEnd)), json: text.slice(shapeEnd + 1, end) };
        start = end + 1;
      }
      rest = text.slice(start);
    }
    this.#handles.splice(this.#handles.indexOf(handle), 1);
    await handle.close();
  }
}
