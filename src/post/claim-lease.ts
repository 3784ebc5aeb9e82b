import { ClaimLostError } from './claim-lost-error.ts';

/**
 * One claim of a batch of ledger items by this process, as this process knows it: the claim's
 * token (the ledger's `claim_token`), and until when it may still send under it, by its monotonic
 * clock (`performance.now()`, ms). That is the claim's time to live counted from the moment the
 * claiming (or last renewing) statement was sent: never later than the expiry the database
 * stamped on the rows (by its own clock, when the statement ran), after which another process may
 * take the items over. Proven before every request (`assertLive`), without a round trip.
 */
export class ClaimLease {
  readonly token: string;
  #liveUntil: number;
  #open: number;

  /**
   * @param token the claim's token.
   * @param liveUntil the claiming statement's send time plus the claim's time to live (monotonic ms).
   * @param items how many items the claim took; {@link finishedOne} counts them off.
   */
  constructor(token: string, liveUntil: number, items: number) {
    this.token = token;
    this.#liveUntil = liveUntil;
    this.#open = items;
  }

  /** Whether every item of the claim has an outcome (or was given up): nothing is sent under it any more. */
  get done(): boolean {
    return this.#open <= 0;
  }

  /** One item of the claim is finished with. */
  finishedOne(): void {
    this.#open -= 1;
  }

  /**
   * A renewal of this process's claims, sent at `sentAt`, succeeded at `answeredAt` (monotonic
   * ms). It extended this claim only if the claim was still live when the statement ran, which is
   * certain when it was still live when the answer came: then it is live until `sentAt + ttlMs`.
   * A claim that may have lapsed first keeps its end, and is lost.
   */
  renewed(sentAt: number, answeredAt: number, ttlMs: number): void {
    if (this.#liveUntil > answeredAt) this.#liveUntil = Math.max(this.#liveUntil, sentAt + ttlMs);
  }

  /**
   * Proves this process may still send item `itemId` under the claim.
   * @throws ClaimLostError when the claim has run out (the process was stopped, or its renewals failed).
   */
  assertLive(itemId: number): void {
    if (performance.now() >= this.#liveUntil) throw new ClaimLostError(itemId);
  }
}
