/** The parts of a zod 4 schema's definition that {@link rowSchemaKeys} walks. */
interface SchemaDef {
  readonly type?: string;
  readonly shape?: Record<string, unknown>;
  readonly in?: { readonly _zod?: { readonly def?: SchemaDef } };
  readonly innerType?: { readonly _zod?: { readonly def?: SchemaDef } };
  readonly left?: { readonly _zod?: { readonly def?: SchemaDef } };
  readonly right?: { readonly _zod?: { readonly def?: SchemaDef } };
}

function keysOf(def: SchemaDef | undefined, depth: number): string[] | undefined {
  if (def === undefined || depth > 8) return undefined;
  switch (def.type) {
    case 'object':
      return def.shape ? Object.keys(def.shape) : undefined;
    case 'pipe':
      return keysOf(def.in?._zod?.def, depth + 1);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return keysOf(def.innerType?._zod?.def, depth + 1);
    case 'intersection': {
      const left = keysOf(def.left?._zod?.def, depth + 1);
      const right = keysOf(def.right?._zod?.def, depth + 1);
      return left && right ? [...new Set([...left, ...right])] : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The field names a CSV source's row schema reads: the keys of its `z.object`, through
 * `.transform`/`.pipe`, `.optional()` and the like, and intersections. `undefined` when the
 * schema is not built on an object (a `z.record`, a `z.custom`, a union), whose keys cannot be
 * known before it runs.
 */
export function rowSchemaKeys(schema: unknown): string[] | undefined {
  return keysOf((schema as { _zod?: { def?: SchemaDef } } | null)?._zod?.def, 0);
}
