/**
 * Base class of every error idem throws on purpose. `code` is stable and machine-readable;
 * `exitCode` is what the CLI exits with when this error ends a command (DESIGN.md, exit codes).
 */
export class IdemError extends Error {
  readonly code: string;
  readonly exitCode: number;

  constructor(message: string, options: { code: string; exitCode?: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.exitCode = options.exitCode ?? 1;
  }
}
