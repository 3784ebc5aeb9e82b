import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRowValidator } from '../../src/source/create-row-validator.ts';
import { seededRandom } from '../../src/prove/seeded-random.ts';

const NAMES = ['id', 'qty', 'when', 'note'];

/** What `safeParse` of the whole row says, in the validator's terms. */
function zodSays(schema: z.ZodType, fields: Record<string, string | null>) {
  const parsed = schema.safeParse(fields);
  if (parsed.success) return { ok: true, row: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, field: issue.path.join('.'), message: issue.message };
}

describe('createRowValidator', () => {
  const schema = z.object({
    id: z.string().trim().regex(/^[A-Z]?\d+$/, 'expected an id'),
    qty: z.string().regex(/^-?\d+$/, 'expected an integer').transform(Number),
    when: z.string().refine((value) => !value.startsWith('2011-02-30'), 'expected a date that exists'),
    note: z.string().nullable(),
  });

  it('gives the rows and first problems safeParse gives, field by field, for 2,000 rows with repeated and broken values', () => {
    const random = seededRandom(7);
    const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)]!;
    const validate = createRowValidator(schema, NAMES);
    for (let i = 0; i < 2000; i++) {
      const fields = {
        id: pick(['536365', ' 536366 ', 'C536379', 'x1', '']),
        qty: pick(['6', '-1', '6.5', 'six']),
        when: pick(['2010-12-01 08:26:00', '2011-02-30 10:00:00']),
        note: pick(['gift', null, '']),
      };
      expect(validate(fields), JSON.stringify(fields)).toEqual(zodSays(schema, fields));
    }
  });

  it('runs a field’s schema once per distinct value, and every row’s when the object has a rule of its own', () => {
    let calls = 0;
    const counted = z.string().refine(() => ++calls > 0);
    const rows = ['a', 'b', 'a', 'a', 'b'].map((id) => ({ id, qty: '1', when: 'w', note: null }));
    const flat = z.object({ id: counted, qty: z.string(), when: z.string(), note: z.string().nullable() });
    const validate = createRowValidator(flat, NAMES);
    expect(rows.map((row) => validate(row).ok)).toEqual([true, true, true, true, true]);
    expect(calls).toBe(2);

    calls = 0;
    const refined = flat.refine((row) => row.qty !== row.when, 'qty and when must differ');
    const validateRefined = createRowValidator(refined, NAMES);
    expect(rows.map((row) => validateRefined(row).ok)).toEqual([true, true, true, true, true]);
    expect(calls).toBe(5);
    expect(validateRefined({ id: 'a', qty: 'w', when: 'w', note: null })).toEqual({ ok: false, field: '', message: 'qty and when must differ' });
  });

  it('keeps every value of a field whose values come back from far apart (random order), and forgets those that never do', () => {
    let calls = 0;
    const counted = z.string().refine(() => ++calls > 0);
    const flat = z.object({ id: counted, qty: z.string(), when: z.string(), note: z.string().nullable() });
    const row = (id: string) => ({ id, qty: '1', when: 'w', note: null });

    // 30,000 distinct ids, three rows each, shuffled: past the cache's first 10,000 values.
    const random = seededRandom(11);
    const ids = Array.from({ length: 90_000 }, (_, i) => `id${i % 30_000}`);
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
    const validate = createRowValidator(flat, NAMES);
    expect(ids.every((id) => validate(row(id)).ok)).toBe(true);
    expect(calls).toBe(30_000);
    expect(validate(row('id17'))).toEqual({ ok: true, row: row('id17') });

    // Values in order, each once: the cache is emptied when full, so the first is run again.
    calls = 0;
    const inOrder = createRowValidator(flat, NAMES);
    for (let i = 0; i <= 10_000; i++) inOrder(row(`k${i}`));
    inOrder(row('k0'));
    expect(calls).toBe(10_002);

    // Long values: 250 of 10,000 characters, twice over. The cache holds 2,000,000 characters of
    // a field at most, so it is emptied at the 201st value and again in the second round, which
    // runs every value again (250 more), where 250 short ones would all be found.
    calls = 0;
    const long = createRowValidator(flat, NAMES);
    const longIds = Array.from({ length: 250 }, (_, i) => `${i}`.padStart(10_000, 'x'));
    for (const id of [...longIds, ...longIds]) long(row(id));
    expect(calls).toBe(500);
  });

  it('gives each row its own object where a field’s output is one, and names a nested problem by its path', () => {
    const boxed = z.object({ id: z.string(), qty: z.string().transform((text) => ({ n: Number(text) })), when: z.string(), note: z.string().nullable() });
    const validate = createRowValidator(boxed, NAMES);
    const first = validate({ id: 'a', qty: '1', when: 'w', note: null });
    const second = validate({ id: 'a', qty: '1', when: 'w', note: null });
    expect([first, second]).toEqual([{ ok: true, row: { id: 'a', qty: { n: 1 }, when: 'w', note: null } }, { ok: true, row: { id: 'a', qty: { n: 1 }, when: 'w', note: null } }]);
    expect(first.ok && second.ok && first.row.qty !== second.row.qty).toBe(true);

    const nested = z.object({ id: z.string(), qty: z.string().transform((text) => JSON.parse(text)).pipe(z.object({ n: z.number() })), when: z.string(), note: z.string().nullable() });
    expect(createRowValidator(nested, NAMES)({ id: 'a', qty: '{"n":"x"}', when: 'w', note: null })).toEqual({ ok: false, field: 'qty.n', message: expect.stringContaining('expected number') });
  });
});
