import { IdemError } from './idem-error.ts';

/** A source that cannot be read or parsed at all (not a single bad row): the run fails. */
export class SourceError extends IdemError {
  readonly source: string;
  readonly line: number | undefined;

  constructor(source: string, line: number | undefined, reason: string, cause?: unknown) {
    super(`${source}${line === undefined ? '' : `:${line}`}: ${reason}`, { code: 'SOURCE', cause });
    this.source = source;
    this.line = line;
  }
}
