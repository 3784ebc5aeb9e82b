import { IdemError } from './idem-error.ts';

/**
 * Thrown by `groupRows` over the whole source on a first pass that assumed the rows come grouped
 * by key (see `rereadableRows`): at the first key that comes back after its group ended, or
 * once more keys than that pass remembers have been seen. The runner catches it and reads the
 * source again through the sort; it ends no run.
 */
export class SourceNotGroupedError extends IdemError {
  /** The key at which the pass stopped, and its line. */
  readonly key: string;
  readonly line: number;
  /** The line the key's earlier rows began on; undefined when the pass stopped for too many keys. */
  readonly firstLine: number | undefined;

  constructor(key: string, line: number, firstLine: number | undefined) {
    super(
      firstLine === undefined
        ? `the source has too many keys to check that each key's rows come together (line ${line})`
        : `the source is not grouped by key: ${JSON.stringify(key)} comes back on line ${line} after its rows from line ${firstLine} ended`,
      { code: 'SOURCE_NOT_GROUPED' },
    );
    this.key = key;
    this.line = line;
    this.firstLine = firstLine;
  }
}
