import type { RemoteTally } from './destination-stand-ins.ts';

/**
 * `updates 536365 ×1`: what the stand-ins applied as updates, and whether it is exactly one
 * update of `reference` at each of `destinations` destinations (a replayed request applies none).
 */
export function updateTallyText(tally: RemoteTally, reference: string, destinations: number): { ok: boolean; text: string } {
  const ofReference = tally.updated.filter(([label]) => label === reference || label.endsWith(` ${reference}`));
  const ok = tally.updated.length === destinations && ofReference.length === destinations && ofReference.every(([, count]) => count === 1);
  const listed = tally.updated.slice(0, 3).map(([label, count]) => `${label} ×${count}`);
  const text = tally.updated.length === 0 ? 'updates none' : `updates ${listed.join(', ')}${tally.updated.length > 3 ? ', …' : ''}`;
  return { ok, text: ok ? `${text} once` : `${text}, expected ${reference} ×1${destinations > 1 ? ` at each of ${destinations} destinations` : ''}` };
}
