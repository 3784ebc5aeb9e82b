import path from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { QuarantinedRow } from '../../src/source/quarantined-row.ts';
import { readCsvRows, type CsvReadSpec } from '../../src/source/csv/read-csv-rows.ts';
import { writeTempSource } from '../helpers/fixtures.ts';

// readCsvRows counts lines itself (csv-parse's per-record `info` costs more than the parse):
// these cases pin the line each row starts on, and the raw text quarantined rows keep.
const spec = {
  header: ['id', 'name', 'qty'],
  row: z.object({ id: z.string(), name: z.string(), qty: z.string().regex(/^\d+$/, 'expected an integer') }),
};

async function read(content: string, options: Omit<CsvReadSpec<unknown>, 'header' | 'row'> = {}) {
  const file = path.join(writeTempSource('lines.csv', content), 'lines.csv');
  const quarantined: Omit<QuarantinedRow, 'source'>[] = [];
  const rows: { line: number; id: string }[] = [];
  let observed = 0;
  for await (const row of readCsvRows(file, { ...spec, ...options }, async ({ source: _s, ...q }) => void quarantined.push(q), () => void (observed += 1))) {
    rows.push({ line: row.line, id: row.value.id });
  }
  return { rows, quarantined, observed };
}

describe('readCsvRows line numbers', () => {
  it('counts blank lines between rows and a file that starts with blank lines', async () => {
    const { rows } = await read('\n\nid,name,qty\n1,a,2\n\n\n2,b,3\n   \n3,c,4\n');
    // Line 8 holds spaces: a record with one field, so it is no row (it is quarantined).
    expect(rows).toEqual([{ line: 4, id: '1' }, { line: 7, id: '2' }, { line: 9, id: '3' }]);
  });

  it('counts a CRLF inside a quoted field as one line, in a CRLF file', async () => {
    // The last line has no line break: a source that declares it may end so.
    const { rows } = await read('id,name,qty\r\n1,"two\r\nlines",2\r\n\r\n2,"three\r\nlines\r\nhere",3\r\n3,x,4', { lastLineBreak: 'optional' });
    expect(rows).toEqual([{ line: 2, id: '1' }, { line: 5, id: '2' }, { line: 8, id: '3' }]);
  });

  it('keeps a quoted empty line as a record (quarantined), unlike a blank line', async () => {
    const { rows, quarantined } = await read('id,name,qty\n""\n\n1,a,2\n');
    expect(rows).toEqual([{ line: 4, id: '1' }]);
    expect(quarantined).toEqual([{ line: 2, reason: 'expected 3 fields, found 1', raw: '""' }]);
  });

  it('quarantines with the row text only, without the blank lines before it or its line break', async () => {
    const { quarantined } = await read('id,name,qty\r\n1,a,2\r\n\r\n\r\n2,"b\r\nc",x\r\n3,c,4\r\n');
    expect(quarantined).toEqual([{ line: 5, reason: 'qty: expected an integer (got "x")', raw: '2,"b\r\nc",x' }]);
  });

  it('calls onRow once per validated row, before the row is yielded', async () => {
    const { rows, observed } = await read('id,name,qty\n1,a,2\n2,b,x\n3,c,4\n');
    expect(rows.map((r) => r.id)).toEqual(['1', '3']);
    expect(observed).toBe(2);
  });
});
