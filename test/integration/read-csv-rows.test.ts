import path from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { SourceError } from '../../src/errors/source-error.ts';
import type { QuarantinedRow } from '../../src/source/quarantined-row.ts';
import { readCsvRows } from '../../src/source/read-csv-rows.ts';
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
    expect((error as SourceError).message).toMatch(/rows\.csv:1: header must be id,name,qty \(got id,title,qty\)/);
  });
});
