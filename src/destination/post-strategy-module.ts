import type { HttpFailure } from '../http/classify-http-failure.ts';
import type { DestinationDefinition } from './destination-definition.ts';
import type { PostStrategy } from './post-strategy.ts';

/**
 * What the shared sender (`postItem`) lends a strategy for one item: the requests a strategy may
 * make besides the create (or update) itself, which only the sender makes.
 */
export interface StrategySender {
  /**
   * Looks the row's record up at the destination (`DestinationDefinition.lookup`).
   * @returns the remote reference of the destination's record of this content version, or
   *   `undefined` when it holds none.
   * @throws the request's error (retried by the sender like any failed attempt).
   */
  lookUp(): Promise<string | undefined>;
  /**
   * Marks the item `sending` in the ledger and commits it.
   * @throws ClaimLostError when the process no longer holds the item's claim.
   */
  markSending(): Promise<void>;
  /** Waits `ms` (injected in tests). */
  sleep(ms: number): Promise<void>;
}

/** How a create (or update) request failed, as the sender read it. */
export interface SendFailure {
  /** What the request threw: an `HttpStatusError` for an error answer, else a network or parse error. */
  readonly error: unknown;
  /** Whether the destination may have applied it (see `requestMayHaveApplied`). */
  readonly mayHaveApplied: boolean;
}

/** How an item ends when it is not tried again: `review`, or `failed` with what the ledger keeps. */
export type StrategyEnding =
  | { readonly status: 'review' }
  | {
      readonly status: 'failed';
      readonly failureKind: 'transient' | 'terminal';
      /** A create it sent may still be applied by the destination (see `LedgerChange.requestMayLand`). */
      readonly requestMayLand?: true;
    };

/**
 * One item's post under a strategy: the strategy's own state across the item's attempts. The
 * sender calls, per attempt: {@link ItemPost.beforeSend}, then (unless it found the record) the
 * create with {@link ItemPost.headers}, then on a failed create {@link ItemPost.sendFailed}; after
 * any failed attempt {@link ItemPost.retries}, and once no retry is left {@link ItemPost.ending}.
 */
export interface ItemPost {
  /** Headers the strategy adds to every create (the destination's request may override them). */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * What the strategy sends first, at the start of every attempt (a look-up, a `sending` mark).
   * @returns the remote reference of a record the destination already holds: the item is
   *   posted and nothing is sent (counted `found`); `undefined` to send the create.
   * @throws what `StrategySender` throws.
   */
  beforeSend(sender: StrategySender): Promise<string | undefined>;
  /** How the strategy reads a failed create: a timeout, a reset, a 5xx, a 4xx. */
  sendFailed(failure: SendFailure): void;
  /** Whether an attempt that failed with `failure` is tried again (within the retry settings). */
  retries(failure: HttpFailure): boolean;
  /** What the item becomes when the last attempt failed with `failure`: `review` or `failed`. */
  ending(failure: HttpFailure): StrategyEnding;
}

/**
 * A post strategy: how a destination is kept from applying a record version twice (see
 * `PostStrategy` for the guarantees, docs/scaling.md for what each covers). One module per
 * strategy under `src/destination/strategies/`, named in `post-strategy-registry.ts`. The code
 * above asks these capabilities and never the strategy's name.
 */
export interface PostStrategyModule {
  readonly name: PostStrategy;
  /** The definition must have a `lookup` (checked when the pipeline is defined and resolved). */
  readonly needsLookup: boolean;
  /**
   * Every create carries the item's `Idempotency-Key`, and the destination answers a repeat of it
   * with the first response (`idem prove`'s stand-ins honour that).
   */
  readonly sendsIdempotencyKey: boolean;
  /**
   * A request that may be in flight is marked `sending` first: outcomes are written one by one,
   * and a `sending` item whose claim lapsed goes to `review` instead of being claimed again.
   */
  readonly marksSending: boolean;
  /**
   * A process taking over another's items must first wait until a request sent under the ended
   * claim can no longer land (see `ResolvedDestination.takeoverGraceMs`); else its grace is 0.
   */
  readonly waitsOutLateRequests: boolean;
  /** Starts one item's post. */
  startItem(args: { readonly idempotencyKey: string; readonly definition: DestinationDefinition; readonly settleDelayMs: number }): ItemPost;
}
