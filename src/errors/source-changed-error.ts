import { IdemError } from './idem-error.ts';

/**
 * A source file changed while a run read it: a producer still writing it (appending lines), or
 * replacing it, or its content is not the content its `--file` run key was made of. Outcome
 * `source-changed`, exit 75: the run stops before anything it read is upserted, so nothing is
 * completed, and a plain rerun once the producer has finished reads the whole file. The message
 * names the file and the change (`source-file-version.ts` words it).
 */
export class SourceChangedError extends IdemError {
  readonly source: string;

  constructor(source: string, change: string) {
    super(
      `${source}: the file changed while it was read (${change}); retry later: nothing of it was upserted, and a rerun once its producer has finished reads the whole file (a producer should write the file under another name, then rename it into place)`,
      { code: 'SOURCE_CHANGED', outcome: 'source-changed' },
    );
    this.source = source;
  }
}
