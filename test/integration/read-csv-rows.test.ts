import { rmSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { SourceError } from '../../src/errors/source-error.ts';
import type { QuarantinedRow } from '../../src/source/quarantined-row.ts';
import { readCsvRows, type CsvReadSpec } from '../../src/source/csv/read-csv-rows.ts';
import { writeTempSource } from '../helpers/fixtures.ts';

const spec = {
  header: ['id', 'name', 'qty'],
  row: z.object({ id: z.string(), name: z.string(), qty: z.string().regex(/^\d+$/, 'expected an integer').transform(Number) }),
};

async function read(content: string) {
  const file = path.join(writeTempSource('rows.csv', content), 'rows.csv');
  const quarantined: QuarantinedRow[] = [];
  const rows = [];
  // `bytes` (progress) differs between LF and CRLF files by design; the rows must not.
  for await (const { bytes: _bytes, ...row } of readCsvRows(file, spec, async (q) => void quarantined.push(q))) rows.push(row);
  return { rows, quarantined: quarantined.map(({ source: _s, ...q }) => q) };
}

describe('readCsvRows', () => {
  it('reads quoted commas, doubled quotes and newlines inside quotes, with the line each row starts on', async () => {
    const { rows, quarantined } = await read('id,name,qty\n1,"a, b",2\n2,"7"" SINGLE",3\n3,"two\nlines",4\n4,plain,5\n');
    expect(quarantined).toEqual([]);
    expect(rows).toEqual([
      { line: 2, value: { id: '1', name: 'a, b', qty: 2 } },
      { line: 3, value: { id: '2', name: '7" SINGLE', qty: 3 } },
      { line: 4, value: { id: '3', name: 'two\nlines', qty: 4 } },
      { line: 6, value: { id: '4', name: 'plain', qty: 5 } },
    ]);
  });

  it('reads a UTF-8 BOM with CRLF exactly like plain LF, and blank trailing lines are no rows', async () => {
    const lf = await read('id,name,qty\n1,x ,2\n2,y,3\n');
    const bom = await read('\uFEFFid,name,qty\r\n1,x ,2\r\n2,y,3\r\n\r\n\r\n');
    expect(bom).toEqual(lf);
    expect(lf.rows.map((r) => r.value.name)).toEqual(['x ', 'y']);
  });

  it('quarantines a wrong field count and a value the schema rejects, naming line, field and rule', async () => {
    const { rows, quarantined } = await read('id,name,qty\n1,a,2\n2,b\n3,c,x\n4,d,5,extra\n5,e,6\n');
    expect(rows.map((r) => r.value.id)).toEqual(['1', '5']);
    expect(quarantined).toEqual([
      { line: 3, reason: 'expected 3 fields, found 2', raw: '2,b' },
      { line: 4, reason: 'qty: expected an integer (got "x")', raw: '3,c,x' },
      { line: 5, reason: 'expected 3 fields, found 4', raw: '4,d,5,extra' },
    ]);
  });

  it('matches the header by name in any order (extra fields not read), or by position when the source says so', async () => {
    const content = 'qty,note,id,name\n2,skip me,1,a\n3,and me,2,b\nx,bad,3,c\n';
    const file = path.join(writeTempSource('rows.csv', content), 'rows.csv');
    const quarantined: QuarantinedRow[] = [];
    const rows = [];
    for await (const row of readCsvRows(file, spec, async (q) => void quarantined.push(q))) rows.push(row.value);
    expect(rows).toEqual([{ id: '1', name: 'a', qty: 2 }, { id: '2', name: 'b', qty: 3 }]);
    // A quarantined row of a reordered file keeps the declared fields in the declared order, so a replay reads it under the header.
    expect(quarantined.map(({ source: _s, ...q }) => q)).toEqual([{ line: 4, reason: 'qty: expected an integer (got "x")', raw: '"3","c","x"' }]);

    const byPosition = await (async () => {
      for await (const _ of readCsvRows(file, { ...spec, headerMatch: 'position' }, async () => {})) void _;
    })().catch((e: unknown) => e);
    expect((byPosition as SourceError).message).toBe(`${file}:1: header must be id,name,qty (column 1 is "qty")`);

    const missing = path.join(writeTempSource('rows.csv', 'id,title,qty\n1,a,2\n'), 'rows.csv');
    const noName = await (async () => {
      for await (const _ of readCsvRows(missing, spec, async () => {})) void _;
    })().catch((e: unknown) => e);
    expect((noName as SourceError).message).toBe(`${missing}:1: header must be id,name,qty: no field named name`);
  });

  it('reads the null tokens the source declares as null, exactly (case counts)', async () => {
    const file = path.join(writeTempSource('rows.csv', 'id,name,qty\n1,NA,\n2,na,NULL\n3,"",4\n'), 'rows.csv');
    const nullable = { header: spec.header, row: z.object({ id: z.string(), name: z.string().nullable(), qty: z.string().nullable() }), nullValues: ['', 'NA', 'NULL'] };
    const rows = [];
    for await (const row of readCsvRows(file, nullable, async () => {})) rows.push(row.value);
    expect(rows).toEqual([{ id: '1', name: null, qty: null }, { id: '2', name: 'na', qty: null }, { id: '3', name: null, qty: '4' }]);
  });

  it('fails on a file it cannot parse, naming the file and line', async () => {
    const error = await read('id,name,qty\n1,a,2\n2,"unclosed,3\n3,c,4\n').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).message).toMatch(/rows\.csv:\d+: Quote Not Closed/);
  });

  it('fails on a source it cannot read (a directory), naming it, and stops there', async () => {
    const dir = writeTempSource('rows.csv', 'id,name,qty\n');
    const read = async (): Promise<unknown[]> => {
      const rows = [];
      for await (const row of readCsvRows(dir, spec, async () => {})) rows.push(row);
      return rows;
    };
    const error = await read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).message).toContain(dir);
    expect((error as SourceError).message).toMatch(/EISDIR/);
  });

  it('fails on a header that differs', async () => {
    const error = await read('id,title,qty\n1,a,2\n').catch((e: unknown) => e);
    expect((error as SourceError).message).toMatch(/rows\.csv:1: header must be id,name,qty: no field named name$/);
  });
});

/** Reads `content` as `name` with the spec's options changed by `options`; the rows' names, or the error. */
async function readWith(content: string | Buffer, options: Omit<CsvReadSpec<unknown>, 'header' | 'row'> = {}, name = 'rows.csv') {
  const file = path.join(writeTempSource(name, content), name);
  const names: string[] = [];
  const quarantined: Omit<QuarantinedRow, 'source'>[] = [];
  try {
    for await (const row of readCsvRows(file, { ...spec, ...options }, async ({ source: _s, ...q }) => void quarantined.push(q))) names.push(row.value.name);
    return { file, names, quarantined, error: undefined };
  } catch (error) {
    expect(error).toBeInstanceOf(SourceError);
    return { file, names, quarantined, error: (error as SourceError).message };
  }
}

/** `id,name,qty` lines up to exactly `length` bytes, the last one unfinished: puts what follows at byte `length`. */
function linesTo(length: number): Buffer {
  let text = 'id,name,qty\n';
  for (let i = 0; text.length < length - 40; i++) text += `${i},${'a'.repeat(20)},1\n`;
  return Buffer.from(`${text}x,${'b'.repeat(length - text.length - 2)}`);
}

/** Windows-1252 bytes 0x80–0x9F as the WHATWG Encoding Standard maps them. */
const WINDOWS_1252_80_9F = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

describe('readCsvRows refuses a file that is not what its source says', () => {
  it('refuses bytes that are not UTF-8 at their exact offset, also when a chunk boundary cuts them', async () => {
    const chunk = 64 * 1024; // createReadStream's chunk
    // A € cut by the boundary is one character, not a fault.
    expect((await readWith(Buffer.concat([linesTo(chunk - 1), Buffer.from('€,1\n')]))).names.at(-1)).toMatch(/^b+€$/);
    // E2 82 (the start of €) then 'A': the unfinished character is refused, wherever the boundary falls.
    for (const at of [chunk - 2, chunk - 1, chunk]) {
      const { file, error } = await readWith(Buffer.concat([linesTo(at), Buffer.from([0xe2, 0x82, 0x41]), Buffer.from(',1\n')]));
      const line = linesTo(at).toString().split('\n').length;
      expect(error).toMatch(new RegExp(`^${file}:${line}: name: bytes that are not UTF-8 \\(0xE2 0x82\\) at byte offset ${at}: the file is not UTF-8 \\(got "b+\uFFFDA"\\); if the source writes windows-1252 or latin1, declare encoding: 'windows-1252'$`));
    }
    const lone = await readWith(Buffer.concat([Buffer.from('id,name,qty\n1,a'), Buffer.from([0x80]), Buffer.from('b,1\n')]));
    expect(lone.error).toBe(`${lone.file}:2: name: bytes that are not UTF-8 (0x80) at byte offset 15: the file is not UTF-8 (got "a\uFFFDb"); if the source writes windows-1252 or latin1, declare encoding: 'windows-1252'`);
    const atEnd = await readWith(Buffer.concat([Buffer.from('id,name,qty\n1,a,2\n2,b,3'), Buffer.from([0xe2, 0x82])]), { lastLineBreak: 'optional' });
    expect(atEnd.error).toBe(`${atEnd.file}:3: qty: bytes that are not UTF-8 (0xE2 0x82) at byte offset 23: the file is not UTF-8 (got "3\uFFFD"); if the source writes windows-1252 or latin1, declare encoding: 'windows-1252'`);
  });

  it("reads windows-1252 (and latin1) as the WHATWG table does, 0x80–0x9F included", async () => {
    const high = Buffer.from(Array.from({ length: 0x80 }, (_, i) => 0x80 + i));
    const expected = String.fromCodePoint(...WINDOWS_1252_80_9F, ...Array.from({ length: 0x60 }, (_, i) => 0xa0 + i));
    for (const encoding of ['windows-1252', 'latin1'] as const) {
      const { names, error } = await readWith(Buffer.concat([Buffer.from('id,name,qty\r\n1,'), high, Buffer.from(',2\r\n')]), { encoding });
      expect(error).toBeUndefined();
      expect(names).toEqual([expected]);
    }
  });

  it('refuses a NUL byte in any encoding, naming line, field and byte offset', async () => {
    for (const [encoding, eol, offset] of [['utf-8', '\n', 24], ['windows-1252', '\r\n', 27]] as const) {
      const { file, error } = await readWith(`id,name,qty${eol}1,a,2${eol}2,"x${eol}y\0z",3${eol}`, { encoding });
      expect(error).toBe(`${file}:4: name: a NUL byte (0x00) at byte offset ${offset}: a text source must not hold one (got ${JSON.stringify(`x${eol}y\0z`)})`);
    }
  });

  it('refuses a record over maxRecordBytes with its line and field once it passes the limit: a 50 MB line', async () => {
    const { file, error, names } = await readWith(`id,name,qty\n1,a,2\n2,${'y'.repeat(50 * 1024 * 1024)},3\n3,c,4\n`);
    rmSync(path.dirname(file), { recursive: true });
    expect(names).toEqual(['a']);
    expect(error).toBe(`${file}:3: name: a record longer than 1048576 bytes, the source's maxRecordBytes (got "2,${'y'.repeat(78)}"… (1048579 characters))`);
    const small = await readWith('id,name,qty\n1,abcdefghijk,2\n', { maxRecordBytes: 10 });
    expect(small.error).toBe(`${small.file}:2: name: a record longer than 10 bytes, the source's maxRecordBytes (got "1,abcdefghijk")`);
  });

  it('checks the header before csv-parse reads further, and names a semicolon-delimited file', async () => {
    const rows = Array.from({ length: 500 }, (_, i) => `${i};a;1`).join('\n');
    const plain = await readWith(`id;name;qty\n${rows}\n9;"quoted";2\n`);
    expect(plain.error).toBe(`${plain.file}:1: header must be id,name,qty: the file looks semicolon-delimited (";"); declare csvSource({ delimiter: ";" })`);
    // Quoted names: csv-parse cannot read even the first record; the header message still comes.
    const quoted = await readWith('"id";"name";"qty"\n1;"a";2\n');
    expect(quoted.error).toBe(`${quoted.file}:1: header must be id,name,qty: the file looks semicolon-delimited (";"); declare csvSource({ delimiter: ";" })`);
    const tabs = await readWith('id\tname\tqty\n1\ta\t2\n');
    expect(tabs.error).toBe(`${tabs.file}:1: header must be id,name,qty: the file looks tab-delimited ("\\t"); declare csvSource({ delimiter: "\\t" })`);
  });

  it("refuses a file with no header line unless emptyFile: 'no-rows'; a header-only file has no rows", async () => {
    for (const [content, what] of [['', '0 bytes'], ['\uFEFF', 'only a BOM or blank lines'], ['\n\n', 'only a BOM or blank lines'], ['\r\n\r\n', 'only a BOM or blank lines']] as const) {
      const refused = await readWith(content);
      expect(refused.error).toBe(`${refused.file}: the file has no header line (${what}): a writer that failed before its first line leaves such a file; if an empty file means no rows for this source, declare emptyFile: 'no-rows'`);
      expect(await readWith(content, { emptyFile: 'no-rows' })).toMatchObject({ names: [], quarantined: [], error: undefined });
    }
    expect(await readWith('id,name,qty\n')).toMatchObject({ names: [], quarantined: [], error: undefined });
  });

  it("refuses a last line without a line break before reading anything, unless lastLineBreak: 'optional'", async () => {
    const cut = await readWith('id,name,qty\n1,a,2\n2,United K');
    expect(cut).toMatchObject({ names: [], quarantined: [] });
    expect(cut.error).toBe(`${cut.file}:3: name: the file does not end with a line break, so its last line looks cut off in transfer (got "United K"); if this source never ends its last line with one, declare lastLineBreak: 'optional'`);
    // Cut inside a quoted field: csv-parse cannot read the field, the line is still named.
    const quoted = await readWith('id,name,qty\n1,a,2\n2,"two\nlin');
    expect(quoted.error).toBe(`${quoted.file}:4: the file does not end with a line break, so its last line looks cut off in transfer; if this source never ends its last line with one, declare lastLineBreak: 'optional'`);
    expect(await readWith('id,name,qty\n1,a,2\n2,b,3', { lastLineBreak: 'optional' })).toMatchObject({ names: ['a', 'b'], error: undefined });
    expect(await readWith('id,name,qty\r1,a,2\r')).toMatchObject({ names: ['a'], error: undefined });
  });

  it('quotes at most 80 characters of a rejected value in the reason', async () => {
    const { quarantined } = await readWith(`id,name,qty\n1,a,${'9'.repeat(50)}x${'9'.repeat(50)}\n`);
    expect(quarantined.map((q) => q.reason)).toEqual([`qty: expected an integer (got "${'9'.repeat(50)}x${'9'.repeat(29)}"… (101 characters))`]);
  });
});
