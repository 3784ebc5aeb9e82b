import type { CsvEncoding } from './csv-source.ts';

/**
 * Bytes of a source in `encoding` as text, by Node's `TextDecoder` (never fatal: bytes that are
 * not UTF-8 become U+FFFD, for messages). `windows-1252` and `latin1` are decoded in stream mode:
 * Node 20.18.3+ and 22.13+ decode them without it by a latin1 fast path that gets 0x80–0x9F wrong
 * (0x80 must be €; nodejs/node#56542, #60888), while stream mode takes ICU's converter, which
 * follows the WHATWG table for all 256 bytes. A single-byte encoding leaves nothing pending.
 */
export function decodeSourceText(bytes: Uint8Array, encoding: CsvEncoding): string {
  return new TextDecoder(encoding).decode(bytes, { stream: encoding !== 'utf-8' });
}
