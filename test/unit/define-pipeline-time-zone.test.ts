import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { column } from '../../src/column/column-type.ts';
import { csvSource } from '../../src/source/csv/csv-source.ts';
import { definePipeline } from '../../src/pipeline/define-pipeline.ts';

// definePipeline checks the time zone by Intl.supportedValuesOf('timeZone') first (cheap at
// start-up) and falls back to luxon for names that list leaves out (aliases): both must give
// the same verdicts luxon alone gave.
function withZone(timeZone: string) {
  return definePipeline({
    name: 'zone-check',
    sourceSystem: 'test',
    timeZone,
    source: csvSource({ directory: 'x', fileForDate: (d) => `${d}.csv`, header: ['ref'], row: z.object({ ref: z.string() }) }),
    // eslint-disable-next-line require-yield
    toRecords: async function* () {},
    tables: { staging: 'stg_zone_check', target: 'zone_check' },
    columns: { label: column.text() },
  });
}

describe('definePipeline timeZone', () => {
  it('accepts canonical IANA names', () => {
    for (const zone of ['Europe/London', 'UTC', 'America/New_York', 'Asia/Kolkata']) expect(withZone(zone).timeZone).toBe(zone);
  });

  it('accepts IANA aliases that Intl.supportedValuesOf does not list, as luxon does', () => {
    for (const zone of ['US/Eastern', 'GB', 'Europe/Kiev', 'Etc/GMT+5']) expect(withZone(zone).timeZone).toBe(zone);
  });

  it('rejects what is not a time zone, naming the field, the rule and the value', () => {
    expect(() => withZone('Mars/Olympus')).toThrow('pipeline timeZone must be an IANA time zone (got "Mars/Olympus")');
    expect(() => withZone('')).toThrow(TypeError);
    expect(() => withZone('Europe/Lond')).toThrow(TypeError);
  });
});
