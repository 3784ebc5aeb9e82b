import { Big } from 'big.js';

/**
 * Whether `value` is a big.js number: of this copy of big.js, or of another one (a pipeline
 * module loaded as CommonJS gets big.js's CommonJS build, whose `Big` is another class than the
 * ES module build idem imports), told by its shape: coefficient digits `c`, exponent `e`, sign `s`.
 */
export function isBig(value: unknown): value is Big {
  if (value instanceof Big) return true;
  if (typeof value !== 'object' || value === null) return false;
  const { c, e, s, toFixed } = value as { c?: unknown; e?: unknown; s?: unknown; toFixed?: unknown };
  return Array.isArray(c) && typeof e === 'number' && (s === 1 || s === -1) && typeof toFixed === 'function';
}
