import type { ClaimLease } from './claim-lease.ts';

/** The claims of one destination's pass that still have items to send, for their renewal. */
export class HeldClaims {
  readonly #leases = new Set<ClaimLease>();

  add(lease: ClaimLease): void {
    this.#leases.add(lease);
  }

  /** A renewal of every claim of this process succeeded (see `ClaimLease.renewed`); finished claims are dropped. */
  renewed(sentAt: number, answeredAt: number, ttlMs: number): void {
    for (const lease of this.#leases) {
      if (lease.done) this.#leases.delete(lease);
      else lease.renewed(sentAt, answeredAt, ttlMs);
    }
  }
}
