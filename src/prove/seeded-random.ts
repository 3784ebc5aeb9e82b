/**
 * A reproducible pseudo-random source (mulberry32, a 32-bit state): the same seed gives the same
 * sequence on every machine, so a failing `idem prove --seed N` repeats exactly. Not for secrets.
 * @param seed any integer; only its low 32 bits matter.
 * @returns a function giving numbers in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
