import type { RemoteTally } from './destination-stand-ins.ts';

/** `remote 143 once`, or what is wrong: a count other than `expected`, or references held more than once. */
export function remoteTallyText(tally: RemoteTally, expected: number): string {
  if (tally.duplicates.length === 0 && tally.records === expected) return `remote ${tally.records} once`;
  const dup = tally.duplicates.map(([reference, count]) => `${reference} ×${count}`);
  const shown = dup.length ? `, ${dup.length} duplicated (${dup.slice(0, 3).join(', ')}${dup.length > 3 ? ', …' : ''})` : '';
  return `remote ${tally.records}${tally.records === expected ? '' : ` ≠ ${expected}`}${shown}`;
}
