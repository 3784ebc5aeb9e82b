import { SourceChangedError } from '../errors/source-changed-error.ts';
import { fileVersionChange, type FileVersion } from './file-version.ts';

/** What a read calls on the run's {@link UnchangedFileCheck} (a reading thread's stand-in forwards the calls to it). */
export type UnchangedFileCalls = Pick<UnchangedFileCheck, 'opened' | 'readToEnd'>;

/**
 * What one run expects of a file source across its reads (a run may read its file twice: see
 * `RereadableRows`): every read opens the version of the file its first read opened, and, for a
 * `--file` run key, reads the bytes the run key was made of. A reader checks, within each read,
 * that the file did not change between its open and its end; this checks across reads and
 * against the run key. One per run, given to every read as `ReadSourceOptions.unchanged`.
 */
export class UnchangedFileCheck {
  readonly #runKeySha256: string | undefined;
  #first: FileVersion | undefined;
  #read: { readonly bytes: number; readonly sha256: string } | undefined;

  /** @param runKeySha256 the SHA-256 (hex) of the content the run key names (`--file`); none for a date. */
  constructor(runKeySha256?: string) {
    this.#runKeySha256 = runKeySha256;
  }

  /**
   * A read opened `file` at `version`: the run's first read remembers it, a later read must
   * open the same version.
   * @throws SourceChangedError when a later read opens another version.
   */
  opened(file: string, version: FileVersion): void {
    if (this.#first === undefined) {
      this.#first = version;
      return;
    }
    const change = fileVersionChange(this.#first, version);
    if (change !== undefined) throw new SourceChangedError(file, `between the first read and the sorted re-read, ${change}`);
  }

  /**
   * A read reached the end of `file`, whose bytes have the SHA-256 `sha256` (hex).
   * @throws SourceChangedError when they are not the bytes the run key was made of.
   */
  readToEnd(file: string, sha256: string): void {
    if (this.#runKeySha256 !== undefined && sha256 !== this.#runKeySha256) {
      throw new SourceChangedError(file, `its content is no longer the content its run key was made of: sha256 ${sha256.slice(0, 16)}… read, ${this.#runKeySha256.slice(0, 16)}… when the run started`);
    }
    this.#read ??= { bytes: Number(this.#first?.size ?? 0n), sha256 };
  }

  /**
   * The identity (size in bytes, SHA-256 in hex) of the file the run read to its end, hashed in
   * the read's own pass; undefined before a read reached the end (or for a source that is no file).
   */
  get readIdentity(): { readonly bytes: number; readonly sha256: string } | undefined {
    return this.#read;
  }
}
