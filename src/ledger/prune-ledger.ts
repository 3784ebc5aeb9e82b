import { deleteByIds } from '../db/delete-by-ids.ts';
import type { Queryable } from '../db/queryable.ts';
import { LEDGER_TABLE as LEDGER } from './ledger-item.ts';
import { newerPostedVersion } from './newer-posted-version.ts';
import { ledgerInstant } from './ledger-write.ts';

/**
 * Deletes (or, with `dryRun`, counts) the ledger rows of one pipeline at one destination that
 * nothing needs any more, last changed before `beforeIso`: `superseded` rows, and `posted` rows
 * that a newer posted version of the same record replaces. The newest posted version of a record
 * is never deleted: it is what stops a rerun of an old date from posting that record again.
 * @returns the number of rows deleted (or that would be).
 */
export async function pruneLedger(q: Queryable, args: { jobName: string; destination: string; beforeIso: string; dryRun: boolean }): Promise<number> {
  const before = ledgerInstant(q, args.beforeIso);
  const ids = (rows: { id: number | string }[]): (number | string)[] => rows.map((r) => r.id);
  const superseded = ids(
    (await q.knex(LEDGER).where({ job_name: args.jobName, destination: args.destination, status: 'superseded' }).where('updated_at', '<', before).select('id')) as { id: number | string }[],
  );
  // Read, then delete by id: MySQL cannot delete from a table its subquery reads.
  const replaced = ids(
    (await q.knex(`${LEDGER} as l`)
      .where({ 'l.job_name': args.jobName, 'l.destination': args.destination, 'l.status': 'posted' })
      .where('l.posted_at', '<', before)
      .whereExists(newerPostedVersion(q))
      .select('l.id as id')) as { id: number | string }[],
  );
  const prunable = [...superseded, ...replaced];
  if (!args.dryRun) await deleteByIds(q, LEDGER, prunable);
  return prunable.length;
}
