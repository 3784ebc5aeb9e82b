import { Big } from 'big.js';
import type { ColumnSpec } from '../column/column-type.ts';
import type { PostedRow } from '../destination/destination-definition.ts';
import { PipelineError } from '../errors/pipeline-error.ts';
import { RawJson } from '../http/raw-json.ts';
import { undefinedBodyFields } from '../destination/undefined-body-fields.ts';
import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import { postedValues } from '../post/posted-values.ts';
import type { PipelineCheck } from './pipeline-check.ts';

/** A value of `spec`'s type, never null: what a sample row holds (a json column an empty array or object, by its shape). */
function sampleValue(spec: ColumnSpec): unknown {
  switch (spec.type) {
    case 'text': return spec.id === true ? '1' : 'sample'.slice(0, spec.maxLength ?? 6);
    case 'integer': return 1;
    case 'decimal': return new Big(1).toFixed(spec.scale ?? 0);
    case 'float': return 1.5;
    case 'date': return '2024-01-01';
    case 'instant': return '2024-01-01T00:00:00.000Z';
    case 'boolean': return true;
    case 'json': return new RawJson((spec.shape?.def as { type?: string } | undefined)?.type === 'array' ? '[]' : '{}');
  }
}

/** A row of the pipeline with a sample value in every column, as the post stage would hand it over. */
function sampleRow(pipeline: PipelineDefinition, remoteReference: string | undefined): PostedRow {
  const values: Record<string, unknown> = {};
  const rawJson: Record<string, RawJson> = {};
  for (const [name, spec] of Object.entries(pipeline.columns)) {
    const value = sampleValue(spec);
    values[name] = value;
    if (value instanceof RawJson) rawJson[name] = value;
  }
  return {
    sourceSystem: pipeline.sourceSystem,
    sourceReference: 'sample',
    version: '0'.repeat(64),
    values: postedValues(values),
    rawJson,
    ...(remoteReference === undefined ? {} : { remoteReference }),
  };
}

/**
 * Each destination's request, built for a sample row (every column holding a value of its type,
 * as a create and as an update), reads only the pipeline's columns and sets every body field:
 * a typo in `request()` (`row.values.totl`) would otherwise drop the field from every body, and
 * the destination may accept that. A request that throws any other error for the sample row is
 * not judged (its code may need real values).
 */
export const checkDestinationBodies: PipelineCheck = {
  name: 'destination request bodies',
  check(pipeline) {
    const problems = new Set<string>();
    for (const destination of pipeline.destinations) {
      for (const remoteReference of [undefined, 'sample-remote-reference']) {
        const what = `destination ${destination.name}: request() for a sample row`;
        let body: unknown;
        try {
          body = destination.request(sampleRow(pipeline, remoteReference)).body;
        } catch (error) {
          if (error instanceof PipelineError) problems.add(`${what}: ${error.message}`);
          continue;
        }
        // A request without a body has no field to leave out.
        for (const field of body === undefined ? [] : undefinedBodyFields(body)) {
          problems.add(`${what} leaves ${field} undefined, which JSON.stringify leaves out of the request; fix: set it from a column of the pipeline (${Object.keys(pipeline.columns).join(', ')}) or leave the field out`);
        }
      }
    }
    return [...problems];
  },
};
