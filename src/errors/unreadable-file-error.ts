import { IdemError } from './idem-error.ts';

/** The error codes of a file (or a directory on its path) that this process may not read. */
const ACCESS_CODES: ReadonlySet<string> = new Set(['EACCES', 'EPERM']);

/**
 * A source file this process may not read (permission denied on it, or on a directory on its
 * path): outcome `usage`, exit 2. A rerun cannot fix it; a person gives the user idem runs as
 * read access. One sentence naming the file, the cause and that user, never the system call's
 * own text (which names the file a second time).
 */
export class UnreadableFileError extends IdemError {
  readonly file: string;

  constructor(file: string, code: string) {
    const uid = process.getuid?.();
    super(`source file ${file} cannot be read: permission denied (${code}); give the user idem runs as${uid === undefined ? '' : ` (uid ${uid})`} read access to the file and search access to its directories`, {
      code: 'UNREADABLE_FILE',
      outcome: 'usage',
    });
    this.file = file;
  }

  /** `error` as an {@link UnreadableFileError} for `file` when it is a permission error (EACCES, EPERM), else undefined. */
  static of(file: string, error: unknown): UnreadableFileError | undefined {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    return typeof code === 'string' && ACCESS_CODES.has(code) ? new UnreadableFileError(file, code) : undefined;
  }
}
