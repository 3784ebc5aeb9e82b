import type { DestinationLookup, PostedRow } from '../destination/destination-definition.ts';

/**
 * A look-up found the destination holding more than one record for a row (see
 * `DestinationLookup.references`): a create applied after the settle delay beside one sent again.
 * Nothing more is sent for the item; it goes to `review` with every record's reference
 * (the ledger item's `remote_duplicates`), and `idem status` counts it.
 */
export class RemoteDuplicatesError extends Error {
  /** The remote references of every record found, as the look-up answered them. */
  readonly references: readonly string[];

  constructor(reference: string, references: readonly string[]) {
    super(`the destination holds ${references.length} records for ${reference}: ${references.join(', ')} (a create applied after the settle delay, beside one sent again); keep one, remove the others at the destination, then idem review --mark-posted ${reference} --remote-ref <the one kept>`);
    this.name = 'RemoteDuplicatesError';
    this.references = references;
  }

  /**
   * @returns the error when `lookup` finds more than one record for `row` in the answer `body`,
   *   else undefined (also for a look-up that declares no `references`).
   */
  static of(lookup: DestinationLookup, body: unknown, row: PostedRow): RemoteDuplicatesError | undefined {
    const references = lookup.references?.(body, row);
    return references !== undefined && references.length > 1 ? new RemoteDuplicatesError(row.sourceReference, references) : undefined;
  }
}
