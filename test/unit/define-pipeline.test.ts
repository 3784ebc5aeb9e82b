import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { column } from '../../src/column/column-type.ts';
import { definePipeline, isPipelineDefinition } from '../../src/pipeline/define-pipeline.ts';
import { PipelineDefinitionError } from '../../src/pipeline/pipeline-definition-error.ts';
import { csvSource } from '../../src/source/csv/csv-source.ts';
import { httpJsonSource } from '../../src/source/http-json/http-json-source.ts';

const Row = z.object({ ref: z.string(), name: z.string() });

/** A valid definition; each test changes one thing, the way a value gets past tsc (a cast). */
function base(): any {
  return {
    name: 'people',
    sourceSystem: 'people',
    timeZone: 'UTC',
    source: csvSource({ directory: 'data', fileForDate: (d) => `${d}.csv`, header: ['ref', 'name'], row: Row }),
    async *toRecords() {},
    tables: { staging: 'stg_people', target: 'people' },
    columns: { name: column.text() },
  };
}

function problemsOf(definition: unknown): readonly string[] {
  try {
    definePipeline(definition as never);
  } catch (error) {
    expect(error).toBeInstanceOf(PipelineDefinitionError);
    expect(error).toBeInstanceOf(TypeError);
    return (error as PipelineDefinitionError).problems;
  }
  return [];
}

describe('definePipeline checks every enum and shape with zod, naming the field, the value and the allowed values', () => {
  it('accepts a valid definition and marks it as its own (a spread copy is unmarked)', () => {
    const pipeline = definePipeline(base());
    expect(isPipelineDefinition(pipeline)).toBe(true);
    expect(isPipelineDefinition({ ...pipeline })).toBe(false);
    expect(Object.isFrozen(pipeline)).toBe(true);
  });

  it('source options of a CSV source', () => {
    const definition = base();
    definition.source = { ...definition.source, missing: 'skipp', encoding: 'utf8', maxRecordBytes: 0 };
    expect(problemsOf(definition)).toEqual([
      'pipeline source.missing must be one of "error", "skip" (got "skipp")',
      'pipeline source.encoding must be one of "utf-8", "windows-1252", "latin1" (got "utf8")',
      'pipeline source.maxRecordBytes must be an integer ≥ 1 (got 0)',
    ]);
  });

  it('a source kind, a column type and a destination strategy', () => {
    const definition = base();
    definition.source = { ...definition.source, kind: 'xlsx' };
    definition.columns = { name: { type: 'varchar', nullable: false } };
    definition.destinations = [{ name: 'api', strategy: 'idempotency_key', request: () => undefined, remoteReference: () => '' }];
    expect(problemsOf(definition)).toEqual([
      'pipeline source.kind must be one of "csv", "http-json", "sql" (got "xlsx")',
      'pipeline columns.name.type must be one of "text", "integer", "decimal", "float", "date", "instant", "boolean", "json" (got "varchar")',
      'pipeline destinations[0].strategy must be one of "idempotency-key", "check-before-create", "mark-before-send" (got "idempotency_key")',
    ]);
  });

  it("an HTTP source's paging style, incremental type and singleFullPage, in a plain object", () => {
    const definition = base();
    const source = httpJsonSource({ path: '/p', paging: { style: 'link-header' }, items: (b) => b as unknown[], row: Row });
    definition.source = { ...source, paging: { style: 'offset' }, incremental: { param: 'since', cursor: () => 1, type: 'date' }, singleFullPage: 'warn' };
    expect(problemsOf(definition)).toEqual([
      'pipeline source.paging.style must be one of "cursor", "page-number", "link-header" (got "offset")',
      'pipeline source.singleFullPage must be one of "fail", "accept" (got "warn")',
      'pipeline source.incremental.type must be one of "instant", "integer" (got "date")',
    ]);
  });

  it('an unknown key (a typo of an optional one), a missing function, with the options that exist', () => {
    const definition = base();
    definition.duplicateKey = 'last-wins';
    delete definition.toRecords;
    expect(problemsOf(definition)).toEqual([
      'pipeline toRecords must be an async generator function of the source rows (or give the pipeline a key: one record per row) (got nothing)',
      'pipeline (definition) has no option "duplicateKey"; its options are name, description, sourceSystem, timeZone, key, fields, source, toRecords, tables, columns, duplicateKeys, destinations, derived, children',
    ]);
  });

  it('the CSV header against the row schema keys, through a transform', () => {
    const definition = base();
    definition.source = { ...definition.source, row: Row.extend({ city: z.string() }).transform((r) => r) };
    expect(problemsOf(definition)).toEqual(['pipeline source.header and source.row differ: the row schema reads "city", which the header lacks (header ref,name)']);
  });

  it('rules between fields after the shapes: every problem at once', () => {
    const definition = base();
    definition.name = 'People';
    definition.timeZone = 'Mars/Olympus';
    expect(problemsOf(definition)).toEqual([
      'pipeline name must be kebab-case, at most 63 characters (got "People")',
      'pipeline timeZone must be an IANA time zone (got "Mars/Olympus")',
    ]);
  });
});
