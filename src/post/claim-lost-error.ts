/**
 * A worker's claim on a ledger item lapsed (and another process may have taken the item over)
 * before a mark-before-send request went out: this process must not send it. Never reaches the
 * ledger or the operator; the post stage counts it as `lost` and moves on.
 */
export class ClaimLostError extends Error {
  readonly itemId: number;

  constructor(itemId: number) {
    super(`the claim on ledger item ${itemId} lapsed before sending: another process owns it now`);
    this.name = 'ClaimLostError';
    this.itemId = itemId;
  }
}
