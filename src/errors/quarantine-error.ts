import { IdemError } from './idem-error.ts';

/** Rows went to the quarantine and the pipeline's `invalidRows` rule is `fail`. */
export class QuarantineError extends IdemError {
  readonly quarantined: number;

  constructor(quarantined: number, first: string) {
    super(`${quarantined} row(s) quarantined and the pipeline's rule is invalidRows: 'fail' (first: ${first}); fix the source and rerun`, {
      code: 'QUARANTINED',
    });
    this.quarantined = quarantined;
  }
}
