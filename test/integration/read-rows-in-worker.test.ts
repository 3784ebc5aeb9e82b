import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { Big } from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdemError } from '../../src/errors/idem-error.ts';
import { SourceChangedError } from '../../src/errors/source-changed-error.ts';
import { SourceError } from '../../src/errors/source-error.ts';
import { loadPipeline } from '../../src/pipeline/load-pipeline.ts';
import { BATCH_ITEMS, BATCHES_IN_FLIGHT } from '../../src/runner/read-rows-messages.ts';
import { readSourceOnThreads } from '../../src/runner/read-source-on-threads.ts';
import type { SourceRow } from '../../src/source/source-row.ts';
import { UnchangedFileCheck } from '../../src/source/unchanged-file-check.ts';
import { createScratchProject, type ScratchProject } from '../helpers/scratch-project.ts';

// IDEM_READ_THREADS=2 (issue 29, lever 2): a CSV source read and validated on a worker thread
// gives the run's thread what a read on it would have given, call for call: rows (line, value,
// bytes), quarantined rows, onRow calls, in the same order, and the same error (class, message,
// fields) after the same rows. The thread runs the build (dist/): `npm run build` first.

/** Order lines, the row schema derived from the columns (a key of two fields, decimals, integers). */
const LINES = `import { column, csvSource, definePipeline } from 'idem';
export const pipeline = definePipeline({
  name: 'lines',
  sourceSystem: 'erp',
  timeZone: 'Europe/Berlin',
  source: csvSource({ directory: 'data', fileForDate: (d) => \`\${d}.csv\`, invalidRows: 'quarantine' }),
  key: ['order_id', 'line_no'],
  tables: { staging: 'stg_lines', target: 'lines' },
  columns: { sku: column.text(), qty: column.integer(), price: column.decimal(12, 2), note: column.text({ nullable: true }) },
});
`;

/** Rows that say which thread validated them: the row schema adds the thread's id. */
const THREADS = `import { threadId } from 'node:worker_threads';
import { z } from 'zod';
import { column, csvSource, definePipeline } from 'idem';
export const pipeline = definePipeline({
  name: 'threads',
  sourceSystem: 'erp',
  timeZone: 'UTC',
  source: csvSource({ directory: 'data', fileForDate: (d) => \`\${d}.csv\`, header: ['id'], row: z.object({ id: z.string() }).transform((row) => ({ ...row, thread: threadId })), invalidRows: 'quarantine' }),
  toRecords: async function* (rows) { for await (const { line, value } of rows) yield { sourceReference: value.id, line, values: { thread: value.thread } }; },
  tables: { staging: 'stg_threads', target: 'threads' },
  columns: { thread: column.integer() },
});
`;

/** A row schema that makes a Big for the line whose id is "big" (a class instance a structured clone would strip), and a Date for each row. */
const BIGS = `import { Big } from 'big.js';
import { z } from 'zod';
import { column, csvSource, definePipeline } from 'idem';
export const pipeline = definePipeline({
  name: 'bigs',
  sourceSystem: 'erp',
  timeZone: 'UTC',
  source: csvSource({
    directory: 'data', fileForDate: (d) => \`\${d}.csv\`, header: ['id', 'price'], invalidRows: 'quarantine',
    row: z.object({ id: z.string(), price: z.string().regex(/^\\d+\\.\\d\\d$/, 'expected a price') })
      .transform((row) => ({ ...row, at: new Date(Date.UTC(2026, 0, 1)), cents: BigInt(row.price.replace('.', '')), price: row.id === 'big' ? new Big(row.price) : row.price })),
  }),
  toRecords: async function* (rows) { for await (const { line, value } of rows) yield { sourceReference: value.id, line, values: { price: String(value.price) } }; },
  tables: { staging: 'stg_bigs', target: 'bigs' },
  columns: { price: column.text() },
});
`;

/** A reading thread that dies at the line whose id is "die" (process.exit in a worker ends the thread alone). */
const DIES = `import { isMainThread } from 'node:worker_threads';
import { z } from 'zod';
import { column, csvSource, definePipeline } from 'idem';
export const pipeline = definePipeline({
  name: 'dies',
  sourceSystem: 'erp',
  timeZone: 'UTC',
  source: csvSource({
    directory: 'data', fileForDate: (d) => \`\${d}.csv\`, header: ['id'], invalidRows: 'quarantine',
    row: z.object({ id: z.string() }).transform((row) => { if (row.id === 'die' && !isMainThread) process.exit(3); return row; }),
  }),
  toRecords: async function* (rows) { for await (const { line, value } of rows) yield { sourceReference: value.id, line, values: { name: value.id } }; },
  tables: { staging: 'stg_dies', target: 'dies' },
  columns: { name: column.text() },
});
`;

/** `n` order lines from line 2 on: every 97th line's qty and every 131st line's price are bad, line 40's note spans two lines. */
function linesCsv(n: number): string {
  let text = 'order_id,line_no,sku,qty,price,note\n';
  for (let i = 0; i < n; i++) {
    const qty = i % 97 === 5 ? 'x' : String(i % 13);
    const price = i % 131 === 7 ? '1.234' : `${i % 50}.${String(i % 100).padStart(2, '0')}`;
    const note = i === 38 ? '"two\nlines"' : i % 3 === 0 ? '' : `"note, ${i}"`;
    text += `${1000 + Math.floor(i / 4)},${i % 4},SKU-${i},${qty},${price},${note}\n`;
  }
  return text;
}

type Event = { readonly row: SourceRow<unknown> } | { readonly quarantined: unknown } | { readonly onRow: number };

/** An error as the assertions compare it: its class, message, own fields and exit code. */
function described(error: unknown) {
  if (!(error instanceof Error)) return error;
  return { class: error.constructor.name, message: error.message, fields: { ...error }, exitCode: error instanceof IdemError ? error.exitCode : undefined };
}

describe('a CSV source read on a thread of its own (IDEM_READ_THREADS=2)', () => {
  let project: ScratchProject;
  const file = (name: string): string => path.join(project.dataDir, name);

  beforeAll(() => {
    project = createScratchProject('read-threads');
    project.writePipeline('lines', LINES);
    project.writePipeline('threads', THREADS);
    project.writePipeline('bigs', BIGS);
    project.writePipeline('dies', DIES);
    writeFileSync(file('lines.csv'), linesCsv(2000));
  });
  afterAll(() => project.remove());

  /** Reads `name`'s source from `source` with `threads` threads: every call the read made, in order, and how it ended. */
  async function read(name: string, source: string, threads: 1 | 2, unchanged = new UnchangedFileCheck()) {
    const pipeline = await loadPipeline(project.dir, name);
    const events: Event[] = [];
    const onThisThread: string[] = [];
    let error: unknown;
    try {
      const rows = await readSourceOnThreads(
        pipeline,
        source,
        async (row) => void events.push({ quarantined: row }),
        { onRow: (row) => events.push({ onRow: row.line }), unchanged },
        { threads, onThisThread: (reason) => onThisThread.push(reason) },
      );
      for await (const row of rows) events.push({ row });
    } catch (caught) {
      error = caught;
    }
    return { events, error, onThisThread, unchanged };
  }

  it('gives the same rows, quarantined rows and onRow calls, in the same order, on the reading thread', async () => {
    const one = await read('lines', file('lines.csv'), 1);
    const two = await read('lines', file('lines.csv'), 2);
    expect(two.error).toBeUndefined();
    expect(two.events).toEqual(one.events);
    const rows = two.events.filter((event) => 'row' in event);
    const quarantined = two.events.filter((event) => 'quarantined' in event);
    // 2,000 lines, 21 bad qty and 16 bad price (none both), over several batches.
    expect(rows.length + quarantined.length).toBe(2000);
    expect(quarantined).toHaveLength(21 + 16);
    expect(quarantined[0]).toEqual({ quarantined: { source: file('lines.csv'), line: 7, reason: expect.stringContaining('qty'), raw: '1001,1,SKU-5,x,5.05,"note, 5"' } });
    // The quoted line break: the row after it starts a line later.
    expect(rows.find((event) => 'row' in event && event.row.line === 40)).toEqual({ row: { line: 40, value: { order_id: '1009', line_no: '2', sku: 'SKU-38', qty: 12, price: '38.38', note: 'two\nlines' }, bytes: expect.any(Number) } });
    expect(rows.at(-1)).toEqual({ row: expect.objectContaining({ line: 2002 }) });
    // The run's check saw the read to its end, with the same hash.
    expect(two.unchanged.readIdentity).toEqual(one.unchanged.readIdentity);
    expect(two.unchanged.readIdentity?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('validates on another thread with 2, on the calling thread with 1 (the row schema records its thread)', async () => {
    writeFileSync(file('threads.csv'), `id\n${Array.from({ length: 600 }, (_, i) => `t${i}`).join('\n')}\n`);
    const threadsOf = (events: Event[]) => new Set(events.flatMap((event) => ('row' in event ? [(event.row.value as { thread: number }).thread] : [])));
    expect(threadsOf((await read('threads', file('threads.csv'), 1)).events)).toEqual(new Set([threadId]));
    const [other, ...more] = threadsOf((await read('threads', file('threads.csv'), 2)).events);
    expect(more).toEqual([]);
    expect(other).not.toBe(threadId);
    expect(other).toBeGreaterThan(0);
  });

  it('refuses a file with a NUL byte at the same line, with the same error, after the same rows', async () => {
    const lines = linesCsv(900).split('\n');
    lines[700] = lines[700]!.replace('SKU', 'S\0KU');
    writeFileSync(file('nul.csv'), lines.join('\n'));
    const one = await read('lines', file('nul.csv'), 1);
    const two = await read('lines', file('nul.csv'), 2);
    expect(two.error).toBeInstanceOf(SourceError);
    expect(described(two.error)).toEqual(described(one.error));
    expect(two.error).toMatchObject({ source: file('nul.csv'), line: 701, code: 'SOURCE', outcome: 'failed' });
    expect((two.error as Error).message).toMatch(/^.*nul\.csv:701: sku: /);
    expect(two.events).toEqual(one.events);
    expect(two.events.filter((event) => 'row' in event).length).toBeGreaterThan(BATCH_ITEMS);
  });

  it('refuses a cut last line and bytes that are not UTF-8 with the same errors', async () => {
    writeFileSync(file('cut.csv'), linesCsv(300).slice(0, -5));
    const cut = [await read('lines', file('cut.csv'), 1), await read('lines', file('cut.csv'), 2)];
    expect(cut[1]!.error).toBeInstanceOf(SourceError);
    expect(described(cut[1]!.error)).toEqual(described(cut[0]!.error));
    expect((cut[1]!.error as Error).message).toContain('does not end with a line break');
    expect(cut[1]!.events).toEqual([]);

    const bytes = Buffer.from(linesCsv(600));
    bytes[bytes.indexOf('SKU-555')] = 0xcb;
    writeFileSync(file('latin.csv'), bytes);
    const latin = [await read('lines', file('latin.csv'), 1), await read('lines', file('latin.csv'), 2)];
    expect(latin[1]!.error).toBeInstanceOf(SourceError);
    expect(described(latin[1]!.error)).toEqual(described(latin[0]!.error));
    // Line 557 past the header, one more for line 40's quoted line break.
    expect(latin[1]!.error).toMatchObject({ line: 558 });
    expect(latin[1]!.events).toEqual(latin[0]!.events);
  });

  it("makes the run's unchanged-file calls on the run's thread: content that is not the run key's is the same SourceChangedError after every row", async () => {
    const check = () => new UnchangedFileCheck('0'.repeat(64));
    const one = await read('lines', file('lines.csv'), 1, check());
    const two = await read('lines', file('lines.csv'), 2, check());
    expect(two.error).toBeInstanceOf(SourceChangedError);
    expect(described(two.error)).toEqual(described(one.error));
    expect((two.error as SourceChangedError).exitCode).toBe(75);
    expect(two.events).toEqual(one.events);
    expect(two.events.filter((event) => 'row' in event)).toHaveLength(2000 - 37);
  });

  it('carries Dates and bigints across; a Big (a class instance) sends the rest of the read to the calling thread, with nothing twice or missing', async () => {
    const ids = Array.from({ length: 900 }, (_, i) => (i === 700 ? 'big' : i % 200 === 9 ? `bad${i}` : `b${i}`));
    writeFileSync(file('bigs.csv'), `id,price\n${ids.map((id, i) => `${id},${id.startsWith('bad') ? 'x' : `${i}.25`}`).join('\n')}\n`);
    const one = await read('bigs', file('bigs.csv'), 1);
    const two = await read('bigs', file('bigs.csv'), 2);
    expect(two.error).toBeUndefined();
    expect(two.events).toEqual(one.events);
    const values = two.events.flatMap((event) => ('row' in event ? [event.row.value as { id: string; price: unknown; at: unknown; cents: unknown }] : []));
    expect(values).toHaveLength(900 - 5);
    expect(values[0]).toEqual({ id: 'b0', price: '0.25', at: new Date(Date.UTC(2026, 0, 1)), cents: 25n });
    expect(values[0]!.at).toBeInstanceOf(Date);
    const big = values.find((value) => value.id === 'big')!;
    expect(big.price).toBeInstanceOf(Big);
    expect(String(big.price)).toBe('700.25');
    expect(two.onThisThread).toEqual(['a Big at "price"']);
    // Rows before it came from the reading thread, enough of them to span batches.
    expect(two.events.findIndex((event) => 'row' in event && (event.row.value as { id: string }).id === 'big')).toBeGreaterThan(BATCH_ITEMS * 2);
  });

  it('says so when the reading thread dies before its read ends', async () => {
    writeFileSync(file('dies.csv'), `id\n${Array.from({ length: 500 }, (_, i) => (i === 400 ? 'die' : `d${i}`)).join('\n')}\n`);
    expect((await read('dies', file('dies.csv'), 1)).error).toBeUndefined();
    const two = await read('dies', file('dies.csv'), 2);
    expect(two.error).toBeInstanceOf(SourceError);
    expect((two.error as Error).message).toBe(`${file('dies.csv')}: the thread reading it (IDEM_READ_THREADS=2) died before the read ended: it exited with code 3`);
  });

  /** This process's open descriptors of `source`, with each one's read position (Linux: /proc). */
  function openDescriptors(source: string): { fd: string; pos: number }[] {
    return readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        if (readlinkSync(`/proc/self/fd/${fd}`) !== source) return [];
        return [{ fd, pos: Number(/^pos:\s+(\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1]) }];
      } catch {
        return [];
      }
    });
  }

  it.skipIf(process.platform !== 'linux')('reads a few batches ahead of its caller, no more, and a caller that stops early ends the read and closes the file', async () => {
    // About 8 MB: read unchecked, the thread would be through most of it in the pause below.
    writeFileSync(file('big-lines.csv'), linesCsv(150_000));
    const pipeline = await loadPipeline(project.dir, 'lines');
    const rows = await readSourceOnThreads(pipeline, file('big-lines.csv'), async () => undefined, {}, { threads: 2 });
    let taken = 0;
    for await (const row of rows) {
      taken += 1;
      if (taken < 10) continue;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const [open, ...others] = openDescriptors(file('big-lines.csv'));
      expect(others).toEqual([]);
      // What the thread may hold: the batches in flight and the one being taken, the file stream's
      // 64 KiB chunk and csv-parse's; a row here is ~50 bytes.
      expect(open!.pos).toBeLessThan((BATCHES_IN_FLIGHT + 2) * BATCH_ITEMS * 60 + 3 * 64 * 1024);
      expect(row.bytes).toBeLessThanOrEqual(open!.pos);
      break;
    }
    expect(taken).toBe(10);
    expect(openDescriptors(file('big-lines.csv'))).toEqual([]);
  });
});
