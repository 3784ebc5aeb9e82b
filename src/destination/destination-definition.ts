import type { HttpSettingsInput } from '../http/http-settings.ts';
import type { RawJson } from '../http/raw-json.ts';
import type { PostStrategy } from './post-strategy.ts';

/**
 * A target row as the post stage hands it to a destination: canonical business values plus its
 * key. `Values` is the pipeline's `ColumnValues` where `definePipeline` infers it (a destination
 * declared inline in the pipeline, or one typed `DestinationDefinition<ColumnValues<typeof
 * columns>>`), so reading a name that is no column does not compile.
 */
export interface PostedRow<Values = Readonly<Record<string, unknown>>> {
  readonly sourceSystem: string;
  readonly sourceReference: string;
  /** The content version (`row_hash`) being posted; an `idem repost` item's carries its mark too (`<row_hash>#repost-<n>`). */
  readonly version: string;
  /**
   * Business columns, canonical values (see `ColumnType`). Reading a name that is no column
   * throws an Error naming it. A json column's document (an object or array) is parsed from the
   * database's text only when something in it is read: a request body that carries it as it is
   * (`lines: row.values.lines`) sends the database's text, neither parsed nor serialised again.
   */
  readonly values: Values;
  /**
   * The json columns only, each as its JSON text (`null` for SQL NULL). Not needed in a request
   * body: `values` sends a json column as its text too. Anywhere else it serialises as its parsed
   * value (see `RawJson`).
   */
  readonly rawJson: Readonly<Record<string, RawJson | null>>;
  /**
   * The remote reference of this record's last posted version at this destination (the
   * reference the ledger stored for it, from `remoteReference` or a look-up), or `undefined`
   * when no version of the record was posted there yet. A destination that keeps one record per
   * business key sends an update of this record (`PUT /invoices/{id}`) when it is set, and a
   * create when it is not.
   */
  readonly remoteReference?: string;
  /**
   * The record was deleted at the source (absent from a full snapshot, or a tombstone): the row
   * goes to the destination's `delete`, with `values` and `version` of the record's last content
   * and `remoteReference` of its last posted version. @defaultValue false
   */
  readonly deleted?: boolean;
}

/**
 * One HTTP request a destination asks for; `path` is appended to the destination's URL. A create
 * (`POST`), an update of the record a row's `remoteReference` names (`PUT` or `PATCH`), or, from
 * `delete`, a deletion (`DELETE`, or a `PATCH` that voids it).
 */
export interface DestinationRequest {
  readonly method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  /** The JSON body; `undefined` sends none (a `DELETE`). */
  readonly body: unknown;
  /**
   * Extra headers for this request. They override idem's own, `idempotency-key` included: a
   * pipeline that sets its own key owns its stability (`idem prove` checks it).
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** How a destination finds a row's remote record: see `DestinationDefinition.lookup`. */
// Methods, not function properties: a destination of typed values is then also a destination of
// any values (parameters are compared both ways), as a registry of pipelines holds them.
export interface DestinationLookup<Values = Readonly<Record<string, unknown>>> {
  /** The GET path (appended to the destination's URL) that finds a row's remote records. */
  path(row: PostedRow<Values>): string;
  /**
   * The remote reference of the record the destination holds now for this row's reference (its
   * current record: the newest, where it keeps one per version) when that record is of this row's
   * content version, else `undefined`. A record of this version that a later version replaced is
   * history and does not count: after a change A → B → A the destination's current record is B,
   * and A is sent again (docs/writing-a-pipeline.md, "The newest content wins").
   */
  find(responseBody: unknown, row: PostedRow<Values>): string | undefined;
  /**
   * Whether the answer holds a record of this row's reference in any content version. When
   * `find` finds none, `--force-reconcile` asks it to tell a record the destination does not
   * have at all (`missing`) from one it holds in another version (`different`); either way the
   * item is sent again. @defaultValue none: every record `find` does not find counts as `missing`
   */
  exists?(responseBody: unknown, row: PostedRow<Values>): boolean;
  /**
   * The remote references of every record the answer holds as this row's record at the
   * destination: for an API that keeps one record per business key, every record of the row's
   * reference. More than one means the destination holds the record twice (a create it applied
   * after the settle delay, when a second one had been sent: the documented bound of
   * check-before-create), so whenever a look-up (before a send, or by `--force-reconcile`) finds
   * more than one, the item goes to `review` with all of them, nothing is sent, and `idem status`
   * counts it among the duplicates at the destination (docs/operating.md, "Duplicates at the
   * destination"). @defaultValue none: a duplicate is not detected
   */
  references?(responseBody: unknown, row: PostedRow<Values>): readonly string[];
}

/** An error answer of the destination (status ≥ 400), as `DestinationDefinition.notApplied` judges it. */
export interface DestinationErrorAnswer {
  readonly status: number;
  /** The response body as text, its first 2048 characters. */
  readonly body: string;
}

/**
 * Stripe's convention for a request whose idempotency key is still in flight: it answers
 * `409 Conflict` (error code `idempotency_key_in_use`) and applies nothing
 * (https://docs.stripe.com/api/idempotent_requests, https://docs.stripe.com/error-codes#idempotency-key-in-use).
 * The default of `DestinationDefinition.keyInFlight`.
 */
export function isStripeKeyInFlight(answer: DestinationErrorAnswer): boolean {
  return answer.status === 409;
}

/**
 * A third-party HTTP API that new and changed records are posted to, one request per record,
 * through the post ledger. Its URL is deployment configuration (`IDEM_DESTINATIONS`), never code.
 * A pipeline module declares it and the post stage carries it out, so it lives below both, as a
 * source's definition does.
 */
export interface DestinationDefinition<Values = Readonly<Record<string, unknown>>> {
  /** Unique within the pipeline, kebab-case; the ledger's `destination` column. */
  readonly name: string;
  readonly strategy: PostStrategy;
  /**
   * The request for a row: a create, or, when `row.remoteReference` is set (an earlier version
   * of the record was posted), an update of that remote record, or a create again for an API
   * that keeps one record per version. It must depend on the row alone (same row → same body):
   * a retry, a rerun or a takeover sends it again, under the strategy's guarantee (the same
   * idempotency key, a look-up of the remote version first, or a mark before sending).
   */
  request(row: PostedRow<Values>): DestinationRequest;
  /**
   * The request that deletes a row's remote record at the destination, once its record was
   * deleted at the source (`row.deleted`; see `SourceDeclaration.snapshot` and `tombstone`), for
   * example `(row) => ({ method: 'DELETE', path: \`/invoices/${row.remoteReference}\`, body:
   * undefined })`, or a `PATCH` that voids it. Called only for a record a version of which was
   * posted here (`row.remoteReference` is set): the deletion of a record never posted sends
   * nothing. It goes through the post ledger and the strategy as a create does, exactly once;
   * under `check-before-create` the look-up first asks whether the destination still holds the
   * record (`lookup.exists`, else `lookup.find` of the last content): a record it no longer holds
   * is the deletion posted. @defaultValue none: a deleted record is marked in the target only,
   * and nothing is sent
   */
  delete?(row: PostedRow<Values>): DestinationRequest;
  /**
   * The remote record's reference in a create's or an update's response body (stored in the
   * ledger, and handed to the record's next version as `PostedRow.remoteReference`). An update
   * whose answer carries no body can return `row.remoteReference`.
   */
  remoteReference(responseBody: unknown, row: PostedRow<Values>): string;
  /**
   * `check-before-create`: the GET path that finds a row's remote record, and how to pick the
   * record of this content version from the response: before a create or an update, a record
   * already of this version means the request was applied (check-before-update compares the
   * remote record's version). Required for that strategy; also used by reconciliation
   * (`idem run --force-reconcile`).
   */
  readonly lookup?: DestinationLookup<Values>;
  /**
   * Timeouts, retries and concurrency, checked by `HttpSettingsSchema` when the pipeline module
   * is imported; `IDEM_DESTINATIONS` may override them field by field.
   * @defaultValue `DEFAULT_HTTP_SETTINGS`
   */
  readonly http?: HttpSettingsInput;
  /**
   * How long the destination remembers an idempotency key, in hours; `idem prune` keeps ledger
   * rows at least this long. @defaultValue 24 (Stripe's documented window)
   */
  readonly idempotencyWindowHours?: number;
  /**
   * Which transient error answers (408, 429, 5xx) prove that the destination did not apply the
   * request. Under `mark-before-send` only a request proven not applied is sent again blind: one
   * that never left (connection refused, a connect timeout, a DNS failure), or an answer this
   * returns true for. Any other failure after the request left goes to `review`: a gateway's 502
   * or 504 can come after its upstream applied the request. Return true only for what the API
   * documents as "not processed", for example its rate limiter's 429. Under the other strategies a
   * transient answer is retried either way (with the same key, or after a look-up), and this
   * decides whether the look-up must first wait out `settleDelayMs`.
   * @defaultValue none: no answer proves it (see `requestMayHaveApplied`)
   */
  readonly notApplied?: (answer: DestinationErrorAnswer) => boolean;
  /**
   * `idempotency-key` only: whether an error answer means "a request with this idempotency key is
   * still being processed" (the first try of this item is still in flight at the destination).
   * Such an answer is transient: the item is tried again with backoff under the same key, and a
   * rerun retries it, never a `failed (terminal)` that needs `idem review --retry`.
   * @defaultValue {@link isStripeKeyInFlight}: Stripe's convention, status 409
   */
  readonly keyInFlight?: (answer: DestinationErrorAnswer) => boolean;
  /**
   * How long after a request failed without an answer proving it was not applied (a timeout, a
   * reset connection, a 504 from a gateway) the destination may still apply it, in ms: a proxy's
   * queue, a slow upstream. `check-before-create` waits this long before its look-up decides that
   * the record is absent, and a process taking over another's items waits it on top of their
   * requests' timeouts (see `ResolvedDestination.takeoverGraceMs`). A request applied later than
   * this can be created twice under `check-before-create`. `IDEM_DESTINATIONS` may override it.
   * @defaultValue 5000
   */
  readonly settleDelayMs?: number;
}
