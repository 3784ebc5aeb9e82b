import { escapeControlCharacters } from './escape-control-characters.ts';
import { redactSecrets } from './redact-secrets.ts';

/**
 * Plain aligned columns for terminal output: a header row, then one row per item. Control
 * characters in cells are shown escaped (see `escapeControlCharacters`), never acted on, and
 * URLs in them without their secrets (see `redactSecrets`).
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const safe = rows.map((r) => r.map((cell) => escapeControlCharacters(redactSecrets(cell))));
  const widths = header.map((h, c) => safe.reduce((w, r) => Math.max(w, (r[c] ?? '').length), h.length));
  const line = (cells: readonly string[]): string => cells.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd();
  return [line(header), ...safe.map(line)].join('\n') + '\n';
}
