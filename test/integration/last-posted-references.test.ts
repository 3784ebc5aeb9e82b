import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { lastPostedReferences } from '../../src/ledger/last-posted-references.ts';
import { toLedgerItem, type LedgerItem, type LedgerRow } from '../../src/ledger/ledger-item.ts';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../helpers/dialects.ts';
import { openMigratedDatabase } from '../helpers/test-db.ts';

const JOB = 'references-test';

// The remote reference an update goes to: the record's last posted version's, at the same
// destination, older than the item, whatever else the ledger holds.
describeEachDialect('the remote reference of a record’s last posted version', (dialect) => {
  let testDb: TestDatabase;
  let db: Database;
  let sequence = 0;

  beforeEach(async (context) => {
    testDb = await createTestDatabase(dialect, context.task.name);
    db = await openMigratedDatabase(testDb.url);
  });

  afterEach(async () => {
    await db.close();
    await testDb.drop();
  });

  /** Adds a ledger row and returns it as idem reads it. */
  const add = async (fields: { reference: string; status: string; remote?: string | null; destination?: string; job?: string }): Promise<LedgerItem> => {
    sequence += 1;
    const now = new Date('2026-12-01T12:00:00Z');
    await db.knex('post_ledger').insert({
      job_name: fields.job ?? JOB,
      destination: fields.destination ?? 'accounting',
      source_system: 'shop',
      source_reference: fields.reference,
      row_hash: String(sequence).padStart(64, '0'),
      idempotency_key: `key-${sequence}`,
      run_key: 'run',
      status: fields.status,
      attempts: 1,
      remote_reference: fields.remote ?? null,
      created_at: now,
      updated_at: now,
    });
    const row = (await db.knex('post_ledger').where({ idempotency_key: `key-${sequence}` }).first()) as LedgerRow;
    return toLedgerItem(row);
  };

  it('takes the newest posted version older than the item, at its destination and job only', async () => {
    await add({ reference: 'A', status: 'posted', remote: 'inv_1' });
    await add({ reference: 'A', status: 'posted', remote: 'inv_1' });
    // Not posted, another destination, another job, no reference: none of them counts.
    await add({ reference: 'A', status: 'review' });
    await add({ reference: 'A', status: 'posted', remote: 'other_9', destination: 'crm' });
    await add({ reference: 'A', status: 'posted', remote: 'job_9', job: 'another-job' });
    await add({ reference: 'A', status: 'superseded', remote: null });
    const a = await add({ reference: 'A', status: 'pending' });
    // A later posted version does not count for an older item.
    await add({ reference: 'B', status: 'posted', remote: 'inv_2' });
    const b1 = await add({ reference: 'B', status: 'pending' });
    await add({ reference: 'B', status: 'posted', remote: 'inv_3' });
    const c = await add({ reference: 'C', status: 'pending' });
    const crm = await add({ reference: 'A', status: 'pending', destination: 'crm' });

    const references = await lastPostedReferences(db, [a, b1, c, crm]);
    expect(Object.fromEntries(references)).toEqual({ [a.id]: 'inv_1', [b1.id]: 'inv_2', [crm.id]: 'other_9' });
  });
});
