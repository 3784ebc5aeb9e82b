import { exitCodeOf, type ExitCode, type Outcome } from '../outcome/outcome.ts';

/**
 * Base class of every error idem throws on purpose. `code` is stable and machine-readable;
 * `outcome` is how a command ends when this error stops it, and sets its exit code (see
 * src/outcome/outcome.ts). @defaultValue outcome `failed`
 */
export class IdemError extends Error {
  readonly code: string;
  readonly outcome: Outcome;

  constructor(message: string, options: { code: string; outcome?: Outcome; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.outcome = options.outcome ?? 'failed';
  }

  /** The exit code of {@link outcome}. */
  get exitCode(): ExitCode {
    return exitCodeOf(this.outcome);
  }
}
