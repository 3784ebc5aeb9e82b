import type { Knex } from 'knex';
import type { DialectAdapter } from '../dialect/dialect-adapter.ts';

/**
 * A knex (or a transaction) with its dialect adapter: what a query needs that may run inside a
 * caller's transaction (an open `Database` is one).
 */
export interface Queryable {
  readonly knex: Knex | Knex.Transaction;
  readonly adapter: DialectAdapter;
}
