/** C0 controls (newline and tab included), DEL and C1 controls: what a terminal may act on. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text fit for a terminal: every control character (C0 with newline and tab, DEL, C1) is shown
 * as `\xHH` instead of being acted on, so `ESC[2J` in a CSV field or a destination's answer
 * prints as `\x1b[2J` and never clears the screen. For human-readable output only: JSON output
 * is JSON (its own escaping).
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
