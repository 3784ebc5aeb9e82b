import type { Knex } from 'knex';
import type { Queryable } from '../db/queryable.ts';
import { LEDGER_TABLE as LEDGER } from './ledger-item.ts';

/**
 * The subquery "a newer version of the same record was posted to the same destination" for the
 * ledger row aliased `l` (for `whereExists` / `whereNotExists`): the row is no longer the
 * destination's current record, only history. @internal
 */
export function newerPostedVersion(q: Queryable): (query: Knex.QueryBuilder) => Knex.QueryBuilder {
  return (newer) =>
    newer
      .select(q.knex.raw('1'))
      .from(`${LEDGER} as n`)
      .whereRaw('n.destination = l.destination and n.source_system = l.source_system and n.source_reference = l.source_reference')
      .where('n.status', 'posted')
      .whereRaw('n.id > l.id');
}
