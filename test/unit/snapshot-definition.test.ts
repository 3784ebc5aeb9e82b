import { describe, expect, it } from 'vitest';
import { column } from '../../src/column/column-type.ts';
import { definePipeline } from '../../src/pipeline/define-pipeline.ts';
import { deletesRecords } from '../../src/pipeline/record-deletions.ts';
import { csvSource } from '../../src/source/csv/csv-source.ts';
import { httpJsonSource } from '../../src/source/http-json/http-json-source.ts';

const base = { name: 'stock', sourceSystem: 'shops', timeZone: 'UTC', key: 'ref', tables: { staging: 'stg_stock', target: 'stock' }, columns: { store: column.text(), qty: column.integer() } };

describe('declaring a full snapshot and tombstones', () => {
  it('a snapshot with a scope column and a share is a pipeline that deletes records; a plain source is not', () => {
    const pipeline = definePipeline({ ...base, source: csvSource({ directory: 'data', fileForDate: (d) => `${d}.csv`, snapshot: 'full', snapshotScope: 'store', maxDeleteShare: 0.25 }) });
    expect(deletesRecords(pipeline)).toBe(true);
    expect(deletesRecords(definePipeline({ ...base, source: csvSource({ directory: 'data', fileForDate: (d) => `${d}.csv` }) }))).toBe(false);
  });

  it('names each mistake: a scope that is no column, a share out of range, scope options without a snapshot, a snapshot of an incremental source', () => {
    expect(() => definePipeline({ ...base, source: csvSource({ directory: 'data', fileForDate: (d) => `${d}.csv`, snapshot: 'full', snapshotScope: 'shop' }) })).toThrow('pipeline source.snapshotScope must name a declared column (got "shop")');
    expect(() => definePipeline({ ...base, source: csvSource({ directory: 'data', fileForDate: (d) => `${d}.csv`, snapshot: 'full', maxDeleteShare: 1.5 }) })).toThrow('must be a share from 0 to 1');
    expect(() => definePipeline({ ...base, source: csvSource({ directory: 'data', fileForDate: (d) => `${d}.csv`, maxDeleteShare: 0.2 }) })).toThrow("pipeline source.maxDeleteShare is an option of snapshot: 'full' (got 0.2)");
    expect(() => definePipeline({ ...base, source: csvSource({ directory: 'data', fileForDate: (d) => `${d}.csv`, snapshot: 'all' as 'full' }) })).toThrow('pipeline source.snapshot must be one');
    expect(() =>
      definePipeline({
        ...base,
        source: httpJsonSource({ path: '/stock', paging: { style: 'link-header' }, items: (b) => b as unknown[], snapshot: 'full', incremental: { param: 'since', cursor: () => 1, type: 'integer' } }),
      }),
    ).toThrow('pipeline source.snapshot cannot be full for an incremental source');
    expect(() => definePipeline({ ...base, columns: { ...base.columns, deleted_at: column.instant() }, source: csvSource({ directory: 'data', fileForDate: (d) => `${d}.csv` }) })).toThrow('pipeline columns.deleted_at is a framework column name');
  });
});
