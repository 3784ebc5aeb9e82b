import type { HttpSettingsInput } from '../http/http-settings.ts';
import type { PostStrategy } from './post-strategy.ts';

/** A target row as the post stage hands it to a destination: canonical business values plus its key. */
export interface PostedRow {
  readonly sourceSystem: string;
  readonly sourceReference: string;
  /** The content version (`row_hash`) being posted. */
  readonly version: string;
  /** Business columns, canonical values (see `ColumnType`). */
  readonly values: Readonly<Record<string, unknown>>;
}

/** One HTTP request a destination asks for; `path` is appended to the destination's URL. */
export interface DestinationRequest {
  readonly method: 'POST' | 'PUT';
  readonly path: string;
  readonly body: unknown;
  /**
   * Extra headers for this request. They override idem's own, `idempotency-key` included: a
   * pipeline that sets its own key owns its stability (`idem prove` checks it).
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** How a destination finds a row's remote record: see `DestinationDefinition.lookup`. */
export interface DestinationLookup {
  /** The GET path (appended to the destination's URL) that finds a row's remote records. */
  readonly path: (row: PostedRow) => string;
  /** The remote reference of the record of this row's content version in the answer, or `undefined`. */
  readonly find: (responseBody: unknown, row: PostedRow) => string | undefined;
  /**
   * Whether the answer holds a record of this row's reference in any content version. When
   * `find` finds none, `--force-reconcile` asks it to tell a record the destination does not
   * have at all (`missing`) from one it holds in another version (`different`); either way the
   * item is sent again. @defaultValue none: every record `find` does not find counts as `missing`
   */
  readonly exists?: (responseBody: unknown, row: PostedRow) => boolean;
}

/**
 * A third-party HTTP API that new and changed records are posted to, one request per record,
 * through the post ledger. Its URL is deployment configuration (`IDEM_DESTINATIONS`), never code.
 * A pipeline module declares it and the post stage carries it out, so it lives below both, as a
 * source's definition does.
 */
export interface DestinationDefinition {
  /** Unique within the pipeline, kebab-case; the ledger's `destination` column. */
  readonly name: string;
  readonly strategy: PostStrategy;
  /** The create request for a row. It must depend on the row alone (same row → same body). */
  readonly request: (row: PostedRow) => DestinationRequest;
  /** The remote record's reference in a create response body (stored in the ledger). */
  readonly remoteReference: (responseBody: unknown) => string;
  /**
   * `check-before-create`: the GET path that finds a row's remote record, and how to pick the
   * record of this content version from the response. Required for that strategy; also used
   * by reconciliation (`idem run --force-reconcile`).
   */
  readonly lookup?: DestinationLookup;
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
}
