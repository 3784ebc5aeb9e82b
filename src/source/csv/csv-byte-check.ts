import type { CsvEncoding } from './csv-source.ts';
import { decodeSourceText } from './decode-source-text.ts';

/** A byte sequence the CSV reader refuses, where it starts in the file. */
export interface CsvByteFault {
  readonly kind: 'nul' | 'invalid-utf-8';
  /** Offset of its first byte from the start of the file (a BOM counts), in bytes. */
  readonly offset: number;
  /** The refused bytes: a NUL, or a sequence that is not UTF-8 (at most 3 bytes). */
  readonly bytes: Buffer;
}

/** A fatal UTF-8 decoder's verdict on `bytes`: true when they are not UTF-8 (`stream`: a cut last character is not yet a fault). */
function notUtf8(bytes: Buffer, stream: boolean): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream });
    return false;
  } catch {
    return true;
  }
}

/**
 * The first sequence of `region` that is not UTF-8, where `region` starts on a character and is
 * known to hold one (the error path: a binary search by TextDecoder, no decoding by hand). The
 * decoder fails at the first byte that cannot continue what came before; the refused sequence
 * is that byte when everything before it is whole characters, else the unfinished character
 * before it.
 */
function firstInvalidSequence(region: Buffer): { start: number; end: number } {
  let valid = 0;
  let invalid = region.length;
  while (invalid - valid > 1) {
    const middle = (valid + invalid) >>> 1;
    if (notUtf8(region.subarray(0, middle), true)) invalid = middle;
    else valid = middle;
  }
  const failing = invalid - 1;
  for (let start = failing; start > failing - 4 && start > 0; start--) {
    if (!notUtf8(region.subarray(0, start), false)) return start === failing ? { start, end: failing + 1 } : { start, end: failing };
  }
  return { start: 0, end: failing === 0 ? 1 : failing };
}

/**
 * Checks a CSV file's bytes chunk by chunk, in file order, before csv-parse reads them, and
 * gives csv-parse UTF-8 text: a NUL byte is a fault in every encoding (PostgreSQL cannot store
 * one, and no text source means one); for `utf-8`, so is a sequence that is not UTF-8 (a fatal
 * `TextDecoder` on each chunk); `windows-1252` (and `latin1`, the same decoder) is decoded
 * ({@link decodeSourceText}) and re-encoded as UTF-8. Costs one native scan per chunk for the NUL and one
 * decode per chunk; locating a fault exactly is left to the error path.
 */
export class CsvByteCheck {
  readonly #encoding: CsvEncoding;
  readonly #utf8: boolean;
  /** `utf-8` only: the fatal decoder that checks each chunk, holding a character cut by the chunk boundary. */
  readonly #decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  /** Bytes of the file before the next chunk. */
  #offset = 0;
  /** The last (at most 3) bytes of the chunk before: a character cut by the chunk boundary starts there. */
  #tail: Buffer = Buffer.alloc(0);

  constructor(encoding: CsvEncoding) {
    this.#encoding = encoding;
    this.#utf8 = encoding === 'utf-8';
  }

  /**
   * The next chunk of the file as csv-parse reads it (UTF-8) and the first fault in it, if any;
   * with a fault, `text` holds only what comes before it.
   */
  next(chunk: Buffer): { text: Buffer; fault?: CsvByteFault } {
    const chunkStart = this.#offset;
    const nul = chunk.indexOf(0);
    let fault: CsvByteFault | undefined = nul < 0 ? undefined : { kind: 'nul', offset: chunkStart + nul, bytes: chunk.subarray(nul, nul + 1) };
    if (this.#utf8) {
      try {
        this.#decoder.decode(chunk, { stream: true });
      } catch {
        const invalid = this.#invalidIn(chunk);
        if (!fault || invalid.offset < fault.offset) fault = invalid;
      }
    }
    this.#offset += chunk.length;
    this.#tail = chunk.length >= 3 ? chunk.subarray(chunk.length - 3) : Buffer.concat([this.#tail, chunk]).subarray(-3);
    const before = fault ? chunk.subarray(0, Math.max(0, fault.offset - chunkStart)) : chunk;
    return { text: this.#utf8 ? before : Buffer.from(decodeSourceText(before, this.#encoding), 'utf8'), ...(fault ? { fault } : {}) };
  }

  /** A fault at the end of the file: a last character cut short (`utf-8` only). */
  end(): CsvByteFault | undefined {
    if (!this.#utf8) return undefined;
    try {
      this.#decoder.decode();
      return undefined;
    } catch {
      // The unfinished character is what the tail holds from its last character start on.
      const from = this.#lastCharacterStart();
      return { kind: 'invalid-utf-8', offset: this.#offset - (this.#tail.length - from), bytes: Buffer.from(this.#tail.subarray(from)) };
    }
  }

  /** Where in the tail the last character starts (a byte that is no UTF-8 continuation byte, whose top bits are not `10`); its length when none does. */
  #lastCharacterStart(): number {
    for (let i = this.#tail.length - 1; i >= 0; i--) if ((this.#tail[i]! & 0xc0) !== 0x80) return i;
    return this.#tail.length;
  }

  /**
   * The invalid sequence that made the decoder throw on `chunk`. Decoding restarts at the last
   * character start of the tail: everything before it was whole characters, since the decoder
   * took it (a character has at most 4 bytes, so an unfinished one starts in the tail).
   */
  #invalidIn(chunk: Buffer): CsvByteFault {
    const from = this.#lastCharacterStart();
    const region = Buffer.concat([this.#tail.subarray(from), chunk]);
    const { start, end } = firstInvalidSequence(region);
    return { kind: 'invalid-utf-8', offset: this.#offset - (this.#tail.length - from) + start, bytes: Buffer.from(region.subarray(start, end)) };
  }
}
