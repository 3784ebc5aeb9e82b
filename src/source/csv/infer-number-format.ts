import { PLAIN_NUMBERS, type NumberFormat } from '../number-format.ts';

/** A number with a decimal comma, its whole part plain or grouped by dots: `1234,5`, `1.234,50`. */
const COMMA_DECIMAL = /^[+-]?(?:\d{1,3}(?:\.\d{3})+|\d+),\d+$/;
/** A number with a decimal point, its whole part plain or grouped by commas: `1234.5`, `1,234.50`. */
const POINT_DECIMAL = /^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)\.\d+$/;
/** A whole number grouped by commas (`1,234`) or by dots (`1.234`): either format writes it, so it tells nothing. */
const GROUPED_WHOLE = /^[+-]?\d{1,3}(?:[.,]\d{3})+$/;
/** A number with dots between groups of three digits, in the decimal-comma format. */
const DOT_GROUPED = /^[+-]?\d{1,3}(?:\.\d{3})+(?:,\d+)?$/;

/**
 * The number format of a CSV sample's fields, for `idem new`: a decimal comma when some value
 * can only be read with one (`2,55`, `1.234,50`) and none only with a decimal point (`2.5`,
 * `1,234.50`), with dots between digit groups when a value has them; else plain numbers. A value
 * either format writes alike (`1,234`, `1.234`) is no evidence.
 */
export function inferNumberFormat(values: Iterable<string | null>): NumberFormat {
  let comma = false;
  let point = false;
  let dots = false;
  for (const value of values) {
    if (value === null || GROUPED_WHOLE.test(value)) continue;
    if (COMMA_DECIMAL.test(value)) {
      comma = true;
      dots ||= DOT_GROUPED.test(value);
    } else if (POINT_DECIMAL.test(value)) point = true;
  }
  if (!comma || point) return PLAIN_NUMBERS;
  return dots ? { decimalSeparator: ',', groupSeparator: '.' } : { decimalSeparator: ',' };
}
