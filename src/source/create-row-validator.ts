import { z, type ZodType } from 'zod';

/** A row a schema accepted, or its first problem: the field's path (`a.b`) and the rule's message. */
export type RowValidation<Row> = { readonly ok: true; readonly row: Row } | { readonly ok: false; readonly field: string; readonly message: string };

/** A field's outcome as cached: its output when valid, else its first issue. */
type FieldOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly field: string; readonly message: string };

/**
 * Distinct values a field's cache holds before it decides what to do (see
 * {@link MAX_VALUES_PER_FIELD}). A year of the UCI shop (541,909 lines) has 38 countries, about
 * 4,000 stock codes, 23,000 times and 25,900 invoice numbers.
 */
const FIRST_VALUES_PER_FIELD = 10_000;

/**
 * Distinct values remembered per field, at most (about 150 bytes each for short values: 12 MB;
 * {@link MAX_CHARS_PER_FIELD} bounds long ones). A full cache doubles its room when at least one
 * look-up in {@link GROW_WHEN_HITS_PER_INSERT} found a value since it last filled (values come
 * back from far apart: a file in random order), and is emptied otherwise (values that end where
 * they start: a file in key order, whose rows share a value with the row before, which costs no
 * look-up). The shuffled year's invoice numbers and times went through their schemas 244,539 and
 * 226,633 times with the cache emptied at 10,000, and 25,900 and 23,260 times (once each)
 * growing to 40,000; the year in order, the same either way (bench/README.md, "Tenth session").
 */
const MAX_VALUES_PER_FIELD = 80_000;

/** A full cache grows when its look-ups found a value at least once per this many values added. */
const GROW_WHEN_HITS_PER_INSERT = 10;

/**
 * Characters of the values a field's cache holds, at most, whatever their number: a cache that
 * reaches it is emptied (the values and their outputs: about 4 MB of one-byte text). The year's
 * 25,900 invoice numbers are 155,400 characters, its 23,260 times 441,940.
 */
const MAX_CHARS_PER_FIELD = 2_000_000;

/**
 * A validator of flat text rows (a CSV record's fields by name, `null` for a null token) by a
 * row schema. When the schema is a `z.object` over exactly these field names with no rule on the
 * object itself (no `.refine` on the row, no transform of it), each field's schema is run once
 * per distinct value and its outcome reused: a file repeats most values (a country, a stock
 * code, a time shared by an invoice's lines), and zod's work per row was about a tenth of an
 * import's CPU. A field whose valid output is an object (a transform to a Date, say) is run every
 * time, so rows never share a mutable value. Otherwise (any other schema) every row is parsed
 * whole, as `safeParse` does.
 *
 * The rows and problems are zod's own: the same output object (fields in the shape's order), and
 * the same first problem (fields are checked in the shape's order, as `z.object` reports them).
 * The one assumption is zod's own: a field's rules depend on its value alone. A rule that looks
 * at other rows (a counter, a set of seen values) belongs in the pipeline's `toRecords` (or on
 * the object, which turns the cache off).
 */
export function createRowValidator<Row>(schema: ZodType<Row>, names: readonly string[]): (fields: Readonly<Record<string, string | null>>) => RowValidation<Row> {
  const perField = schema instanceof z.ZodObject && (schema.def.checks ?? []).length === 0 && sameNames(Object.keys(schema.shape), names);
  if (!perField) {
    return (fields) => {
      const parsed = schema.safeParse(fields);
      if (parsed.success) return { ok: true, row: parsed.data };
      const issue = parsed.error.issues[0]!;
      return { ok: false, field: issue.path.join('.'), message: issue.message };
    };
  }
  const shape = Object.entries(schema.shape as Record<string, ZodType>);
  const caches = shape.map(() => new FieldCache());
  // Each field's last value and outcome: consecutive rows often share one (an invoice's lines
  // share its number, time, customer and country), and comparing costs less than hashing.
  const lastValues: (string | null | undefined)[] = shape.map(() => undefined);
  const lastOutcomes: (FieldOutcome | undefined)[] = shape.map(() => undefined);
  const outcomeOf = (name: string, field: ZodType, value: string | null): FieldOutcome => {
    const parsed = field.safeParse(value);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issue = parsed.error.issues[0]!;
    return { ok: false, field: [name, ...issue.path].join('.'), message: issue.message };
  };
  return (fields) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < shape.length; i++) {
      const [name, field] = shape[i]!;
      const value = fields[name]!;
      let outcome = value === lastValues[i] ? lastOutcomes[i]! : caches[i]!.get(value);
      if (outcome === undefined) {
        outcome = outcomeOf(name, field, value);
        if (outcome.ok && typeof outcome.value === 'object' && outcome.value !== null) {
          // Not kept: each row gets its own object.
          row[name] = outcome.value;
          continue;
        }
        caches[i]!.set(value, outcome);
      }
      lastValues[i] = value;
      lastOutcomes[i] = outcome;
      if (!outcome.ok) return outcome;
      row[name] = outcome.value;
    }
    return { ok: true, row: row as Row };
  };
}

/** One field's outcomes by value, bounded: see {@link MAX_VALUES_PER_FIELD}. */
class FieldCache {
  readonly #outcomes = new Map<string | null, FieldOutcome>();
  #room = FIRST_VALUES_PER_FIELD;
  /** Look-ups that found a value, and values added, since the cache last filled. */
  #hits = 0;
  #added = 0;
  /** Characters of the values held. */
  #chars = 0;

  get(value: string | null): FieldOutcome | undefined {
    const outcome = this.#outcomes.get(value);
    if (outcome !== undefined) this.#hits += 1;
    return outcome;
  }

  set(value: string | null, outcome: FieldOutcome): void {
    if (this.#outcomes.size >= this.#room || this.#chars >= MAX_CHARS_PER_FIELD) {
      const comeBack = this.#hits * GROW_WHEN_HITS_PER_INSERT >= this.#added;
      if (comeBack && this.#room < MAX_VALUES_PER_FIELD && this.#chars < MAX_CHARS_PER_FIELD) {
        this.#room *= 2;
      } else {
        this.#outcomes.clear();
        this.#chars = 0;
      }
      this.#hits = 0;
      this.#added = 0;
    }
    this.#outcomes.set(value, outcome);
    this.#added += 1;
    this.#chars += value?.length ?? 0;
  }
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && new Set([...a, ...b]).size === a.length;
}
