import { Big } from 'big.js';

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;
const WHOLE = /^[+-]?\d+(\.0*)?$/;

const fail = (what: string, value: unknown, rule: string): never => {
  throw new TypeError(`${what}: ${rule} (got ${JSON.stringify(value)})`);
};

/**
 * Canonical forms of source text, for `toRecords`: the same business value, however a source
 * formats it, becomes the same value, so a re-export with other formatting (`2.5500` for
 * `2.55`, `17850.0` for `17850`, surrounding spaces) is no change: no update, no post. A declared
 * column needs none of them (its type reads these formats, see `canonicalValue`), nor does a
 * value nested in a json column with a `shape` (see `canonicalField`): these plain functions are
 * for the rest of a pipeline's own code.
 *
 * ```ts
 * unit_price: canonical.decimal(line.UnitPrice),   // ' 2.5500' → '2.55'
 * quantity: canonical.integer(line.Quantity),      // '6.0' → 6
 * customer_id: canonical.id(line.CustomerID),      // '17850.0' → '17850', '' → null
 * ```
 *
 * Each throws a TypeError naming the rule and the value for text that is not of its kind:
 * validate the field in the row schema first, and the error is the pipeline's.
 */
export const canonical = {
  /** Text without surrounding whitespace (spaces, tabs, line breaks); inner spaces are kept. */
  text(value: string): string {
    return value.trim();
  },

  /** Text without surrounding whitespace, or `null` when nothing is left (`''`, `'  '`). */
  optionalText(value: string): string | null {
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  },

  /**
   * A decimal number as its shortest exact text, without exponent: `'2.5500'` → `'2.55'`,
   * `'+010'` → `'10'`, `'.5'` → `'0.5'`, `'-0.00'` → `'0'`. With `scale`, exactly that many
   * decimals (`'2.5'`, 3 → `'2.500'`), and an error for a value with more significant decimals
   * (nothing is rounded). By big.js, never through a float.
   * @throws TypeError for text that is not a decimal number, or has more than `scale` decimals.
   */
  decimal(value: string, scale?: number): string {
    const text = value.trim();
    if (!DECIMAL.test(text)) return fail('decimal', value, 'expected a decimal number such as 2.55');
    // big.js reads neither a leading `+` nor a trailing `.`.
    const big = new Big(text.replace(/^\+/, '').replace(/\.$/, ''));
    if (scale === undefined) {
      const fixed = big.toFixed();
      return fixed.startsWith('-') && big.eq(0) ? fixed.slice(1) : fixed;
    }
    const fixed = big.toFixed(scale);
    if (!new Big(fixed).eq(big)) fail('decimal', value, `has more than ${scale} decimals`);
    return fixed.startsWith('-') && new Big(fixed).eq(0) ? fixed.slice(1) : fixed;
  },

  /**
   * A whole number as a JS number: `'6'`, `' 6 '`, `'6.0'`, `'+6'` → `6`.
   * @throws TypeError for fractions (`'6.5'`), other text, and numbers beyond ±2^53 − 1.
   */
  integer(value: string): number {
    const text = value.trim();
    if (!WHOLE.test(text)) return fail('integer', value, 'expected a whole number such as 6');
    const number = Number(text);
    return Number.isSafeInteger(number) ? number : fail('integer', value, 'is beyond ±9007199254740991');
  },

  /**
   * A numeric identifier as text, without the float formatting some exports give it:
   * `'17850.0'` → `'17850'`, `' 17850 '` → `'17850'`; `null` for empty text (a guest, no
   * customer). Leading zeros are kept (`'007'`): in an identifier they are part of it.
   * @throws TypeError for text that is not a whole number.
   */
  id(value: string): string | null {
    const text = value.trim();
    if (text === '') return null;
    if (!/^\d+(\.0*)?$/.test(text)) return fail('id', value, 'expected a whole number such as 17850 or 17850.0');
    return text.replace(/\.0*$/, '');
  },
} as const;
