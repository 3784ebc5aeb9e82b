/**
 * How a text source writes numbers: the decimal separator, and the group (thousands) separator if
 * it writes one. `{ decimalSeparator: ',', groupSeparator: '.' }` reads `1.234,50` (German,
 * Dutch, Brazilian exports); `{ decimalSeparator: ',', groupSeparator: ' ' }` reads `1 234,50`
 * (French). The default, `{ decimalSeparator: '.' }`, is the number as JSON and SQL write it.
 */
export interface NumberFormat {
  /** @defaultValue '.' */
  readonly decimalSeparator: '.' | ',';
  /** @defaultValue none: a number holds no separator between its digit groups */
  readonly groupSeparator?: '.' | ',' | ' ' | "'" | '\u00a0' | '\u202f';
}

/** The number format of JSON, SQL and most CSV exports. */
export const PLAIN_NUMBERS: NumberFormat = Object.freeze({ decimalSeparator: '.' });

const escape = (char: string): string => char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A function that turns a number's text in `format` into the plain decimal text the column
 * rules read (`1.234,50` → `1234.50`), or throws a TypeError naming the format for text that is
 * not a number written that way (digit groups of three after the first, one decimal separator).
 * The number itself is read by the column's rule (big.js for a decimal), never here. For
 * {@link PLAIN_NUMBERS}, the text as it is.
 */
export function plainNumberText(format: NumberFormat): (text: string) => string {
  const { decimalSeparator: decimal, groupSeparator: group } = format;
  if (decimal === '.' && group === undefined) return (text) => text;
  const digits = group === undefined ? '\\d+' : `(?:\\d{1,3}(?:${escape(group)}\\d{3})+|\\d+)`;
  const shape = new RegExp(`^[+-]?${digits}(?:${escape(decimal)}\\d+)?$`);
  const described = `${JSON.stringify(decimal)} between the whole and the decimal part${group === undefined ? '' : ` and ${JSON.stringify(group)} between groups of three digits`}`;
  return (text) => {
    if (!shape.test(text)) throw new TypeError(`must be a number written with ${described}`);
    const whole = group === undefined ? text : text.replaceAll(group, '');
    return decimal === '.' ? whole : whole.replace(decimal, '.');
  };
}
