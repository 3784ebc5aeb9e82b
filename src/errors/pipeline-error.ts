import { IdemError } from './idem-error.ts';

/**
 * A mistake in a pipeline's own code, found while it runs: `toRecords` gave a `values` key that
 * is not a declared column, or a value of the wrong type for its column (a float for a decimal, a
 * decimal string for an integer). Not the source's fault, so nothing is quarantined: the run
 * stops with outcome `usage` (exit 2) and the message names the pipeline, the column, the type
 * expected and the value received.
 */
export class PipelineError extends IdemError {
  constructor(message: string) {
    super(message, { code: 'PIPELINE', outcome: 'usage' });
  }
}
