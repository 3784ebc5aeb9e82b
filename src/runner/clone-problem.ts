import { isBig } from '../column/is-big.ts';

/** Nesting followed into a row's value; deeper is taken to be plain data. */
const MAX_DEPTH = 32;

/**
 * Why `value` would not arrive as itself through `postMessage` (a structured clone), or
 * undefined when it would: strings, numbers, booleans, bigints, null, undefined, `Date`s,
 * `RegExp`s, binary data, and arrays, plain objects, `Map`s and `Set`s of them. A class instance
 * (a `Big`, a luxon `DateTime`, a `Map`'s subclass) arrives as a plain object without its
 * prototype, and a function or a symbol not at all.
 * @returns what the value holds, for a message: `a Big at "UnitPrice"`.
 */
export function cloneProblem(value: unknown, at = '', depth = 0): string | undefined {
  if (value === null || depth > MAX_DEPTH) return undefined;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return undefined;
    case 'function':
    case 'symbol':
      return `a ${typeof value}${where(at)}`;
  }
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return `an array of its own class${where(at)}`;
    for (let i = 0; i < value.length; i++) {
      const problem = cloneProblem(value[i], `${at}[${i}]`, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (prototype === Date.prototype || prototype === RegExp.prototype || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return undefined;
  if (prototype === Map.prototype || prototype === Set.prototype) {
    let i = 0;
    for (const entry of value as Iterable<unknown>) {
      const problem = cloneProblem(entry, `${at}<${i++}>`, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (prototype !== Object.prototype && prototype !== null) {
    // big.js's prototype is a plain object of its own (its `constructor` is Object's).
    const name = isBig(value) ? 'Big' : (prototype as { constructor?: { name?: unknown } }).constructor?.name;
    return `${typeof name === 'string' && name !== '' && name !== 'Object' ? `a ${name}` : 'an instance of a class'}${where(at)}`;
  }
  for (const [key, field] of Object.entries(value as object)) {
    const problem = cloneProblem(field, at === '' ? key : `${at}.${key}`, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function where(at: string): string {
  return at === '' ? '' : ` at ${JSON.stringify(at)}`;
}
