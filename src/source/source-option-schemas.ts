import { z } from 'zod';

/** A function option, checked by its type alone, with the message naming what it must be. */
export const functionOption = (what: string) => z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', { message: `must be ${what}` });

/** A non-empty name (a field, a query parameter). */
export const nameOption = z.string().min(1, { message: 'must be a non-empty name' });

/** An integer ≥ 1 (a size, a count). */
export const countOption = z.number().int({ message: 'must be an integer' }).min(1, { message: 'must be an integer ≥ 1' });

/** A zod schema, told by its `safeParse` (a pipeline module may bring its own copy of zod). */
export const rowSchemaOption = z.custom<{ safeParse: unknown }>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function',
  { message: 'must be a zod schema, for example z.object({ … }) (or give the pipeline a key, to derive it from the columns)' },
);

/** What a rejected row does to the run: every kind has this option. */
export const invalidRowsOption = z.enum(['quarantine', 'fail']);

/**
 * The options every kind has for records that leave the source (see `SourceDeclaration.snapshot`,
 * `snapshotScope`, `maxDeleteShare`, `tombstone`): spread into each kind's `options`.
 */
export const deletionOptions = {
  snapshot: z.literal('full', { message: "must be 'full' (each read is a full export of its scope)" }).optional(),
  snapshotScope: nameOption.optional(),
  maxDeleteShare: z.number().min(0, { message: 'must be a share from 0 to 1' }).max(1, { message: 'must be a share from 0 to 1' }).optional(),
  tombstone: functionOption('a function of the validated row').optional(),
};
