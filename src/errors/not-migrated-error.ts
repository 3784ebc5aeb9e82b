import { IdemError } from './idem-error.ts';

/** The database has pending migrations; `idem run` refuses to start (outcome `usage`). */
export class NotMigratedError extends IdemError {
  readonly pending: readonly string[];

  constructor(pending: readonly string[]) {
    super(
      `the database is not migrated (${pending.length} pending: ${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', …' : ''}); run \`idem migrate\` first`,
      { code: 'NOT_MIGRATED', outcome: 'usage' },
    );
    this.pending = pending;
  }
}
