import { Big } from 'big.js';
import { isBig } from './is-big.ts';
import { z, type ZodType } from 'zod';
import { canonical } from './canonical.ts';
import { idValue } from './id-value.ts';
import { wallTimeParser } from './wall-time.ts';

/** A zod field that converts its input by `convert`, an error thrown by it being the field's issue (its rule, without the `(got …)`). */
function field<T>(convert: (value: unknown) => T): ZodType<T> {
  return z.unknown().transform((value, ctx) => {
    try {
      return convert(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^\w+: /, '').replace(/ \(got [\s\S]*\)$/, '') });
      return z.NEVER;
    }
  });
}

const WHOLE = /^\s*[+-]?\d+(\.0*)?\s*$/;

const fail = (rule: string): never => {
  throw new TypeError(rule);
};

/**
 * A Big as `canonical.decimal` writes its text, read from its own digits rather than its text
 * again (an amount computed in a json column's lines is one per line: half a million a year).
 */
function bigDecimal(value: Big, scale?: number): string {
  // big.js keeps no trailing zeros in `c`: these are its significant decimals.
  if (scale !== undefined && value.c.length - value.e - 1 > scale) fail(`has more than ${scale} decimals`);
  const fixed = scale === undefined ? value.toFixed() : value.toFixed(scale);
  return value.c[0] === 0 && fixed.startsWith('-') ? fixed.slice(1) : fixed;
}

/**
 * Zod fields that read a source's formats and give the canonical value (see `ColumnType`), for
 * a row schema and for the `shape` of a json column (`column.json({ shape })`), where values
 * nested in a document get their canonical form this way. Each takes text (a CSV field) or a
 * JSON value; a row validator runs each once per distinct value of a CSV field.
 *
 * ```ts
 * Quantity: canonicalField.integer(),                  // ' 6.0 ' → 6
 * UnitPrice: canonicalField.decimal(),                 // '2.5500' → '2.55'
 * amount: canonicalField.decimal(3),                   // Big 15.3 → '15.300'
 * CustomerID: canonicalField.id(),                     // '17850.0' → '17850', '' → null
 * InvoiceDate: canonicalField.wallTime('yyyy-MM-dd HH:mm:ss', 'Europe/London'), // → ISO UTC
 * ```
 */
export const canonicalField = {
  /** A whole number as a JS number, from text (`'6'`, `' 6.0 '`, `'+6'`) or a safe integer; issue `expected an integer`. */
  integer: (): ZodType<number> =>
    field((value) => {
      if (typeof value === 'string') return WHOLE.test(value) ? canonical.integer(value) : fail('expected an integer');
      return Number.isSafeInteger(value) ? (value as number) : fail('expected an integer');
    }),
  /**
   * A decimal as its shortest exact text (`'2.5500'` → `'2.55'`), or with exactly `scale`
   * decimals, from text, a JSON number or a `Big`; more significant decimals than `scale` are an
   * issue, never rounded (see `canonical.decimal`).
   */
  decimal: (scale?: number): ZodType<string> =>
    field((value) => {
      if (isBig(value)) return bigDecimal(value, scale);
      if (typeof value === 'number' && Number.isFinite(value)) return canonical.decimal(String(value), scale);
      return typeof value === 'string' ? canonical.decimal(value, scale) : fail('expected a decimal number such as 2.55');
    }),
  /** An identifier as `column.id()` stores it: trimmed, `17850.0` → `17850`, empty → `null`. */
  id: (): ZodType<string | null> =>
    field((value) => {
      const id = idValue(value ?? null);
      return id === null || typeof id === 'string' ? id : fail('expected an identifier: text or a whole number');
    }),
  /**
   * A local wall time in `format` (luxon's tokens) in the IANA zone `zone`, as the canonical
   * instant; issue `expected a date and time that exist in <zone>` for text not in the format
   * or a time that does not exist there (see `wallTimeParser`).
   */
  wallTime: (format: string, zone: string): ZodType<string> => {
    const parse = wallTimeParser(format, zone);
    return field((value) => (typeof value === 'string' ? parse(value) : null) ?? fail(`expected a date and time that exist in ${zone}`));
  },
} as const;
