import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scaffoldPipeline } from '../../src/scaffold/scaffold-pipeline.ts';
import { newPipelineKinds } from '../../src/source/source-kinds.ts';

describe('scaffoldPipeline', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'idem-scaffold-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps a sample without a last line break loadable, and the fixture to its first --rows records', async () => {
    const sample = path.join(dir, 'stations.csv');
    writeFileSync(sample, 'Station ID,reading,taken\r\nA,1.5,2024-01-01\r\nB,NA,2024-01-02\r\nC,2.25,2024-01-03');
    const result = await scaffoldPipeline({ projectDir: dir, name: 'stations', samples: { csv: sample }, fixtureRows: 2 });
    expect(result.plan.key).toEqual(['Station ID']);
    const module = readFileSync(path.join(dir, 'pipelines/stations.ts'), 'utf8');
    expect(module).toContain("source: csvSource({ nullValues: ['', 'NA', 'NULL'], lastLineBreak: 'optional' }),");
    expect(module).toContain("key: 'Station ID',");
    expect(module).toContain('reading: column.decimal(3, 2, { nullable: true }),');
    expect(readFileSync(path.join(dir, 'fixtures/stations/sample.csv'), 'utf8')).toBe('Station ID,reading,taken\nA,1.5,2024-01-01\nB,NA,2024-01-02\n');
    await expect(scaffoldPipeline({ projectDir: dir, name: 'stations', samples: { csv: sample } })).rejects.toThrow('idem new writes nothing over existing files: pipelines/stations.ts');
  });

  it('takes exactly one sample, by a flag a source kind declares', async () => {
    const sample = path.join(dir, 'stations.csv');
    writeFileSync(sample, 'id,reading\nA,1\n');
    expect([...newPipelineKinds()].map(([flag, kind]) => [flag, kind.name, kind.scaffold!.flag.argument])).toEqual([['csv', 'csv', 'file'], ['json', 'http-json', 'url-or-file'], ['sql', 'sql', 'select']]);
    await expect(scaffoldPipeline({ projectDir: dir, name: 'stations', samples: {} })).rejects.toThrow('idem new needs exactly one sample: --csv FILE or --json URL_OR_FILE or --sql SELECT');
    await expect(scaffoldPipeline({ projectDir: dir, name: 'stations', samples: { csv: sample, json: sample } })).rejects.toThrow('idem new needs exactly one sample');
    await expect(scaffoldPipeline({ projectDir: dir, name: 'stations', samples: { parquet: sample } })).rejects.toThrow('idem new has no sample flag --parquet');
    // A flag left undefined (commander's way of saying "not given") is no sample.
    const result = await scaffoldPipeline({ projectDir: dir, name: 'stations', samples: { csv: sample, json: undefined } });
    expect([result.plan.sample, result.plan.source.builder, result.plan.source.fixture]).toEqual(['stations.csv', 'csvSource', { path: 'fixtures/stations/sample.csv', text: 'id,reading\nA,1\n', records: 1 }]);
  });

  it('finds the items of a JSON body in its first array of objects, and refuses a key that repeats', async () => {
    const sample = path.join(dir, 'orders.json');
    writeFileSync(sample, JSON.stringify({ meta: { page: 1 }, data: [{ ref: 'a', total: 10.5, region: 'x' }, { ref: 'b', total: 3, region: 'x' }] }));
    await expect(scaffoldPipeline({ projectDir: dir, name: 'orders', samples: { json: sample }, key: 'region' })).rejects.toThrow(
      '--key region is missing or repeated in the sample: a business key must be present and unique in every row',
    );
    await scaffoldPipeline({ projectDir: dir, name: 'orders', samples: { json: sample } });
    const module = readFileSync(path.join(dir, 'pipelines/orders.ts'), 'utf8');
    expect(module).toContain("path: '/orders',");
    expect(module).toContain("items: (body) => (body as Record<string, unknown[]>)['data']!,");
    expect(module).toContain('total: column.float(),');
    expect(JSON.parse(readFileSync(path.join(dir, 'fixtures/orders/sample.json'), 'utf8')).data).toHaveLength(2);
  });
});
