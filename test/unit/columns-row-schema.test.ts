import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { column } from '../../src/column/column-type.ts';
import { definePipeline } from '../../src/pipeline/define-pipeline.ts';
import { columnsRowSchema } from '../../src/source/columns-row-schema.ts';
import { csvSource } from '../../src/source/csv/csv-source.ts';
import { httpJsonSource } from '../../src/source/http-json/http-json-source.ts';
import { cursorOfRow } from '../../src/source/cursor-of-row.ts';
import { PipelineError } from '../../src/errors/pipeline-error.ts';
import type { PipelineRecord } from '../../src/pipeline/pipeline-record.ts';

const columns = { name: column.text(), reading: column.float({ nullable: true }), price: column.decimal(6, 2), at: column.instant(), ok: column.boolean() };

describe('columnsRowSchema', () => {
  it('converts CSV text to each column\'s canonical value, instants without an offset in the time zone', () => {
    const row = columnsRowSchema({ key: 'code', columns, form: 'text', timeZone: 'Europe/London' });
    expect(row.parse({ code: 'A1', name: 'x ', reading: null, price: '3.1', at: '2024-07-01 08:30:00', ok: 'TRUE' })).toEqual({
      code: 'A1', name: 'x ', reading: null, price: '3.10', at: '2024-07-01T07:30:00.000Z', ok: true,
    });
    const bad = row.safeParse({ code: '', name: null, reading: 'warm', price: '1.005', at: 'soon', ok: 'yes' });
    expect(bad.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      'code: the business key must be text of 1..200 characters',
      'name: must not be null',
      'reading: must be a finite number',
      'price: has more than 2 decimals',
      'at: must be an ISO 8601 or SQL date-time',
      'ok: must be a boolean',
    ]);
  });

  it('trims spaces around the key and a value read as a number, date, instant or boolean, from CSV and JSON; a text column keeps its value as written', () => {
    const text = columnsRowSchema({ key: 'code', columns: { name: column.text(), longitude: column.decimal(9, 6), qty: column.integer(), on: column.date(), ok: column.boolean() }, form: 'text', timeZone: 'UTC' });
    expect(text.parse({ code: ' A1 ', name: ' x ', longitude: ' -72.637078 ', qty: ' 6 ', on: ' 2024-07-01 ', ok: ' true' })).toEqual({
      code: 'A1', name: ' x ', longitude: '-72.637078', qty: 6, on: '2024-07-01', ok: true,
    });
    const json = columnsRowSchema({ key: 'id', columns: { name: column.text(), longitude: column.decimal(9, 6), at: column.instant() }, form: 'json', timeZone: 'UTC' });
    expect(json.parse({ id: 1, name: ' x ', longitude: ' -72.637078 ', at: ' 2024-07-01T08:30:00Z ' })).toEqual({
      id: '1', name: ' x ', longitude: '-72.637078', at: '2024-07-01T08:30:00.000Z',
    });
  });

  it('takes JSON values as parsed (numbers for decimal and float), a missing field as null, renamed fields by `fields`', () => {
    const row = columnsRowSchema({ key: 'id', columns, fields: { name: 'Name' }, form: 'json', timeZone: 'UTC' });
    expect(row.parse({ id: 7, Name: 'y', price: 10.5, at: '2024-07-01T08:30:00+02:00', ok: false })).toEqual({
      id: '7', name: 'y', reading: null, price: '10.50', at: '2024-07-01T06:30:00.000Z', ok: false,
    });
    // An issue names the source's field, as the quarantine quotes it.
    expect(row.safeParse({ id: 7, Name: 3, price: 1, at: '2024-07-01T08:30:00Z', ok: true }).error?.issues.map((issue) => issue.path.join('.'))).toEqual(['Name']);
  });
});

describe('definePipeline with a key', () => {
  it('derives the row schema and the CSV header from the columns, and one record per row', async () => {
    const pipeline = definePipeline({
      name: 'short', sourceSystem: 'short', timeZone: 'UTC',
      source: csvSource({ nullValues: ['NA'] }),
      key: 'code',
      fields: { name: 'Name' },
      tables: { staging: 'stg_short', target: 'short' },
      columns: { name: column.text(), qty: column.integer() },
    });
    expect(pipeline.source.kind === 'csv' && pipeline.source.header).toEqual(['code', 'Name', 'qty']);
    expect(pipeline.source.kind === 'csv' && pipeline.source.directory).toBeUndefined();
    const value = pipeline.source.row!.parse({ code: 'A', Name: 'n', qty: '2' });
    async function* rows() {
      yield { line: 2, value };
    }
    const records: PipelineRecord[] = [];
    for await (const record of pipeline.toRecords(rows())) records.push(record);
    expect(records).toEqual([{ sourceReference: 'A', line: 2, values: { name: 'n', qty: 2 } }]);
  });

  it('refuses a pipeline with neither a key nor a row schema, and a csvSource with half of the dated-file settings', () => {
    const base = { name: 'short', sourceSystem: 's', timeZone: 'UTC', tables: { staging: 'stg_s', target: 's' }, columns: { qty: column.integer() } };
    expect(() => definePipeline({ ...base, source: csvSource() })).toThrow('pipeline source.row must be a zod schema, for example z.object({ … }) (or give the pipeline a key, to derive it from the columns)');
    expect(() => definePipeline({ ...base, source: csvSource({ row: z.object({ qty: z.string() }) }) })).toThrow('pipeline toRecords must be an async generator function of the source rows (or give the pipeline a key: one record per row)');
    expect(() => csvSource({ directory: 'data' })).toThrow('csvSource: directory and fileForDate go together');
    expect(csvSource({ row: z.object({ b: z.string(), a: z.string() }) }).header).toEqual(['b', 'a']);
  });

  it("gives an incremental cursor the row keyed by column names; a cursor that reads the API's name is the pipeline's mistake (exit 2), naming the row's keys", () => {
    const pipeline = definePipeline({
      name: 'cars', sourceSystem: 'cars', timeZone: 'UTC',
      source: httpJsonSource({
        path: '/cars', paging: { style: 'link-header' }, items: (body) => body as unknown[],
        incremental: { param: 'updated_since', cursor: (car) => (car as Record<string, string>).updated_at!, type: 'instant' },
      }),
      key: 'id',
      fields: { changed: 'updated_at' },
      tables: { staging: 'stg_cars', target: 'cars' },
      columns: { name: column.text(), changed: column.instant() },
    });
    const source = pipeline.source.kind === 'http-json' ? pipeline.source : undefined;
    const row = source!.row!.parse({ id: 3, name: 'Volvo', updated_at: '2026-11-30T10:00:00Z' });
    expect(row).toEqual({ id: '3', name: 'Volvo', changed: '2026-11-30T10:00:00.000Z' });
    const error = (() => {
      try {
        cursorOfRow(source!.incremental!, row, 'http://api/cars: item 1');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(PipelineError);
    expect((error as PipelineError).exitCode).toBe(2);
    expect((error as Error).message).toBe(
      'http://api/cars: item 1: the pipeline\'s incremental.cursor(row) returned undefined; the row it receives is the validated row, whose keys are "id", "name", "changed" (a row derived from the columns is keyed by column names)',
    );
    expect(cursorOfRow({ cursor: (car: typeof row) => car.changed as string }, row, 'item 1')).toBe('2026-11-30T10:00:00.000Z');
  });
});
