/**
 * A process's claim on a ledger item ran out (its claim lease, or, under mark-before-send, the
 * claim in the ledger), and another process may take the item over or have taken it: this
 * process must not send it. Never reaches the ledger or the operator; the post stage counts it as
 * `lost` and moves on.
 */
export class ClaimLostError extends Error {
  readonly itemId: number;

  constructor(itemId: number) {
    super(`the claim on ledger item ${itemId} ran out before sending: another process may own it now`);
    this.name = 'ClaimLostError';
    this.itemId = itemId;
  }
}
