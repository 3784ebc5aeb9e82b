import type { ZodType } from 'zod';

/** One value changed in a record: which field, from what, to what. */
export interface ValueChange {
  readonly field: string;
  readonly from: unknown;
  readonly to: unknown;
}

/**
 * What a value could become to be a different one of the same form: its last digit moved by one
 * (a number, an amount, a date or a time stay what they were: `6` → `7`, `2010-12-01 08:26:00` →
 * `…:01`), a number plus one, a flag flipped, a text with ` (changed)` appended.
 */
function candidates(value: unknown): unknown[] {
  if (typeof value === 'number') return [value + 1];
  if (typeof value === 'boolean') return [!value];
  if (typeof value !== 'string') return [];
  const digit = /(\d)(\D*)$/.exec(value);
  const moved = digit ? [`${value.slice(0, digit.index)}${digit[1] === '9' ? '8' : String(Number(digit[1]) + 1)}${digit[2]}`] : [];
  return [...moved, `${value} (changed)`];
}

/**
 * The first change of one field of `record` that `row` (the source's row schema) still accepts
 * and that changes what it yields: fields tried from the last to the first (a record's leading
 * fields are the likeliest to be its key), `keep` left alone.
 * @returns the change and the changed record, or undefined when no field can be changed so.
 */
export function changeOneValue(record: Readonly<Record<string, unknown>>, row: ZodType, keep: readonly string[]): { change: ValueChange; record: Record<string, unknown> } | undefined {
  const before = row.safeParse(record);
  if (!before.success) return undefined;
  const parsed = JSON.stringify(before.data);
  for (const field of Object.keys(record).reverse()) {
    if (keep.includes(field)) continue;
    for (const to of candidates(record[field])) {
      const changed = { ...record, [field]: to };
      const after = row.safeParse(changed);
      if (after.success && JSON.stringify(after.data) !== parsed) return { change: { field, from: record[field], to }, record: changed };
    }
  }
  return undefined;
}
