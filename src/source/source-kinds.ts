import { CSV_SOURCE_KIND } from './csv/csv-source-kind.ts';
import { HTTP_JSON_SOURCE_KIND } from './http-json/http-json-source-kind.ts';
import type { SourceDeclaration, SourceKind } from './source-kind.ts';
import { SQL_SOURCE_KIND } from './sql/sql-source-kind.ts';

/** The built-in source kinds by name: what a declaration's `kind` names (`csvSource`, `httpJsonSource`, `sqlSource`). */
export const SOURCE_KINDS: Readonly<Record<string, SourceKind<never>>> = Object.freeze({
  [CSV_SOURCE_KIND.name]: CSV_SOURCE_KIND as SourceKind<never>,
  [HTTP_JSON_SOURCE_KIND.name]: HTTP_JSON_SOURCE_KIND as SourceKind<never>,
  [SQL_SOURCE_KIND.name]: SQL_SOURCE_KIND as SourceKind<never>,
});

/** Whether `value` has the shape of a {@link SourceKind} (a pipeline module's own kind, told by what it does). */
export function isSourceKind(value: unknown): value is SourceKind<never> {
  if (typeof value !== 'object' || value === null) return false;
  const kind = value as Record<string, unknown>;
  return (
    typeof kind.name === 'string' &&
    (kind.fieldForm === 'text' || kind.fieldForm === 'json' || kind.fieldForm === 'sql') &&
    typeof kind.rereadable === 'boolean' &&
    ['withDerivedRow', 'locate', 'checkLocation', 'read'].every((method) => typeof kind[method] === 'function')
  );
}

/** The built-in kind a source's `kind` names, or the {@link SourceKind} object it carries; undefined for neither. */
export function findSourceKind<Source extends SourceDeclaration>(source: Source): SourceKind<Source> | undefined {
  const { kind } = source;
  const found = typeof kind === 'string' ? (Object.hasOwn(SOURCE_KINDS, kind) ? SOURCE_KINDS[kind] : undefined) : isSourceKind(kind) ? kind : undefined;
  return found as unknown as SourceKind<Source> | undefined;
}

/**
 * The kind of a source: the built-in kind its `kind` names, or the {@link SourceKind} object it
 * carries.
 * @throws TypeError for a kind that is neither (`definePipeline` refuses such a source first).
 */
export function sourceKindOf<Source extends SourceDeclaration>(source: Source): SourceKind<Source> {
  const { kind } = source;
  const found = findSourceKind(source);
  if (found === undefined) throw new TypeError(`source.kind must be one of ${Object.keys(SOURCE_KINDS).map((name) => JSON.stringify(name)).join(', ')}, or a SourceKind object (got ${typeof kind === 'string' ? JSON.stringify(kind) : typeof kind})`);
  return found;
}

/**
 * The built-in kinds `idem new` can write a pipeline for, by their flag's name (`csv`, `json`):
 * the CLI's flags are made from it, so a kind that declares `scaffold` has its flag.
 * @throws TypeError when two kinds declare the same flag.
 */
export function newPipelineKinds(): ReadonlyMap<string, SourceKind<never>> {
  const byFlag = new Map<string, SourceKind<never>>();
  for (const kind of Object.values(SOURCE_KINDS)) {
    const flag = kind.scaffold?.flag.name;
    if (flag === undefined) continue;
    if (byFlag.has(flag)) throw new TypeError(`two source kinds declare the idem new flag --${flag}`);
    byFlag.set(flag, kind);
  }
  return byFlag;
}
