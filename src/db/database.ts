import type { Knex } from 'knex';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';

/** An open database: the knex pool and the dialect adapter that speaks to it. */
export interface Database {
  readonly knex: Knex;
  readonly adapter: DialectAdapter;
  /** The URL with its password redacted, for logs. */
  readonly description: string;
  close(): Promise<void>;
}
