import type { TargetSnapshot } from './read-target-snapshot.ts';

/**
 * How `actual` differs from `expected`, in words for the prove table: `rows 143 = 143` when equal,
 * else the counts and the first few keys missing, extra or changed.
 */
export function compareTargetSnapshots(expected: TargetSnapshot, actual: TargetSnapshot): { equal: boolean; text: string } {
  const missing = [...expected.keys()].filter((key) => !actual.has(key));
  const extra = [...actual.keys()].filter((key) => !expected.has(key));
  const changed = [...expected.keys()].filter((key) => actual.has(key) && actual.get(key) !== expected.get(key));
  if (missing.length + extra.length + changed.length === 0) return { equal: true, text: `rows ${actual.size} = ${expected.size}` };
  const few = (label: string, keys: string[]): string[] => (keys.length ? [`${keys.length} ${label} (${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ', …' : ''})`] : []);
  return { equal: false, text: [`rows ${actual.size} ≠ ${expected.size}`, ...few('missing', missing), ...few('extra', extra), ...few('changed', changed)].join(', ') };
}
