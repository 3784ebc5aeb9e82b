import { z } from 'zod';
import { POST_STRATEGIES } from '../destination/post-strategy.ts';
import { countOption, deletionOptions, functionOption, invalidRowsOption, rowSchemaOption } from '../source/source-option-schemas.ts';
import { isSourceKind, SOURCE_KINDS } from '../source/source-kinds.ts';

const fn = functionOption;
const count = countOption;

const ColumnSpecSchema = z.strictObject({
  type: z.enum(['text', 'integer', 'decimal', 'float', 'date', 'instant', 'boolean', 'json']),
  nullable: z.boolean(),
  precision: z.number().optional(),
  scale: z.number().optional(),
  maxLength: count.optional(),
  id: z.literal(true).optional(),
  wallTime: z.string().min(1, { message: "must be a luxon format such as 'yyyy-MM-dd HH:mm:ss'" }).optional(),
  shape: z.custom<{ safeParse: unknown }>(
    (value) => typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function',
    { message: 'must be a zod schema of the document' },
  ).optional(),
});

/** A built-in kind's declaration, checked by that kind's `options` (picked by `kind`). */
const BuiltInSourceSchema = z.discriminatedUnion(
  'kind',
  Object.values(SOURCE_KINDS).map((kind) => kind.options) as unknown as [z.ZodObject<{ kind: z.ZodLiteral<string> }>, ...z.ZodObject<{ kind: z.ZodLiteral<string> }>[]],
);

/** A declaration of a pipeline module's own kind: the options every kind has (the kind's own `options` are checked after). */
const OwnKindSourceSchema = z.looseObject({
  kind: z.custom((value) => isSourceKind(value), { message: 'must name a built-in source kind or be a SourceKind object (name, fieldForm, rereadable, withDerivedRow, locate, checkLocation, read)' }),
  row: rowSchemaOption,
  invalidRows: invalidRowsOption,
  ...deletionOptions,
});

const DestinationSchema = z.strictObject({
  name: z.string(),
  strategy: z.enum(POST_STRATEGIES as [string, ...string[]]),
  request: fn('a function of the posted row'),
  delete: fn('a function of the deleted row').optional(),
  remoteReference: fn('a function of the response body'),
  lookup: z
    .strictObject({ path: fn('a function of the posted row'), find: fn('a function (body, row)'), exists: fn('a function (body, row)').optional(), references: fn('a function (body, row)').optional() })
    .optional(),
  // Checked field by field by `httpSettingsProblem`, as IDEM_DESTINATIONS is.
  http: z.unknown().optional(),
  idempotencyWindowHours: z.number().positive({ message: 'must be a number of hours > 0' }).optional(),
  notApplied: fn('a function of the error answer').optional(),
  keyInFlight: fn('a function of the error answer').optional(),
  settleDelayMs: z.number().optional(),
});

/**
 * The shape of a whole pipeline definition as `definePipeline` has filled in its defaults: every
 * key (no unknown ones: a typo of an optional key would otherwise be dropped silently), every
 * enum, and a built-in source's options by its `kind` (`SOURCE_KINDS`). Rules between fields (names, reserved columns,
 * decimal precision, the header against the row schema) are `definePipeline`'s own checks.
 */
export const PipelineDefinitionSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  sourceSystem: z.string(),
  timeZone: z.string(),
  key: z.union([z.string(), z.array(z.string())]).optional(),
  fields: z.record(z.string(), z.string()).optional(),
  source: BuiltInSourceSchema,
  toRecords: fn('an async generator function of the source rows (or give the pipeline a key: one record per row)'),
  tables: z.strictObject({ staging: z.string(), target: z.string() }),
  columns: z.record(z.string(), ColumnSpecSchema),
  duplicateKeys: z.enum(['error', 'last-wins', 'collapse-identical']),
  destinations: z.array(DestinationSchema),
  derived: z.array(z.strictObject({
    table: z.string(),
    scope: z.string(),
    columns: z.record(z.string(), ColumnSpecSchema),
    query: fn('a function (target, scope, raw) that returns a knex query over the target table'),
    scopeFrom: z.string().optional(),
  })),
  children: z.array(z.strictObject({ table: z.string(), list: z.string(), columns: z.record(z.string(), ColumnSpecSchema) })),
});

/** A value as a message quotes it: JSON where it has one, else its type. */
function quote(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint' || typeof value === 'symbol') return typeof value;
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 80)}…` : json;
}

/** The keys an object schema at `path` of `schema` allows, for a message about an unknown key. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[], input: unknown): string[] {
  let current: z.ZodType | undefined = schema;
  let value = input;
  const step = (s: z.ZodType | undefined): z.ZodType | undefined => {
    // Unwrap optionals, and pick a discriminated union's option by the value's discriminator.
    for (let i = 0; s !== undefined && i < 4; i++) {
      const def = s._zod.def as unknown as { type: string; innerType?: z.ZodType; options?: z.ZodType[]; discriminator?: string };
      if (def.type === 'optional') s = def.innerType;
      else if (def.type === 'union' && def.discriminator && value && typeof value === 'object') {
        const tag = (value as Record<string, unknown>)[def.discriminator];
        s = def.options!.find((option) => (option as z.ZodObject).shape[def.discriminator!]?._zod.def.values?.includes(tag as never));
      } else break;
    }
    return s;
  };
  current = step(current);
  for (const key of path) {
    const def = current?._zod.def as unknown as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; valueType?: z.ZodType } | undefined;
    value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
    if (def?.type === 'object') current = step(def.shape![key as string]);
    else if (def?.type === 'array') current = step(def.element);
    else if (def?.type === 'record') current = step(def.valueType);
    else return [];
  }
  const def = current?._zod.def as unknown as { type: string; shape?: Record<string, z.ZodType> } | undefined;
  return def?.type === 'object' ? Object.keys(def.shape!) : [];
}

/**
 * Every problem `PipelineDefinitionSchema` finds in a definition, one line each, naming the
 * field (a dot path such as `source.invalidRows`), the value and the rule or the allowed values:
 * `source.invalidRows must be one of "quarantine", "fail" (got "quarntine")`.
 */
export function pipelineDefinitionProblems(definition: unknown): string[] {
  const source = (definition as { source?: { kind?: unknown } } | null)?.source;
  const ownKind = typeof source?.kind === 'object' && source.kind !== null;
  const schema = ownKind ? PipelineDefinitionSchema.extend({ source: OwnKindSourceSchema }) : PipelineDefinitionSchema;
  const parsed = schema.safeParse(definition, { reportInput: true });
  // A kind of the module's own checks its options with its own schema, under `source`.
  const kindOptions = ownKind && isSourceKind(source.kind) ? (source.kind as { options?: z.ZodType }).options : undefined;
  const ownIssues = kindOptions?.safeParse(source, { reportInput: true }).error?.issues.map((issue) => ({ ...issue, path: ['source', ...issue.path] })) ?? [];
  const issues = [...(parsed.error?.issues ?? []), ...ownIssues] as z.core.$ZodIssue[];
  return issues.map((issue) => {
    const field = issue.path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`)).join('') || '(definition)';
    const got = quote(issue.input);
    switch (issue.code) {
      case 'invalid_value':
        return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')} (got ${got})`;
      case 'invalid_union': {
        const { discriminator, options } = issue as unknown as { discriminator?: string; options?: unknown[] };
        if (discriminator && options) {
          const tag = issue.input && typeof issue.input === 'object' ? (issue.input as Record<string, unknown>)[discriminator] : undefined;
          return `${field} must be one of ${options.map((v) => JSON.stringify(v)).join(', ')} (got ${quote(tag)})`;
        }
        return `${field} ${issue.message.toLowerCase()} (got ${got})`;
      }
      case 'unrecognized_keys': {
        const allowed = keysAt(schema, issue.path, definition);
        return `${field} has no option ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}${allowed.length ? `; its options are ${allowed.join(', ')}` : ''}`;
      }
      case 'invalid_type':
        return `${field} must be ${issue.expected === 'custom' ? 'set' : `a${/^[aeiou]/.test(issue.expected) ? 'n' : ''} ${issue.expected}`} (got ${got})`;
      default:
        return `${field} ${issue.message.replace(/^Too (small|big): /, '')} (got ${got})`;
    }
  });
}
