import type { Knex } from 'knex';
import { column, type MigrationContext } from 'idem';

/**
 * Duplicates at the destination (issue 28 §7): `post_ledger.remote_duplicates` holds the remote
 * references, as a JSON array of strings, of every record a look-up (before a send, or
 * `--force-reconcile`) found at the destination for the item's record when it found more than one:
 * the item went to `review` with them, so the operator can keep one and remove the others, and
 * `idem status` counts them. Null otherwise, and again once the item leaves review. Append-only:
 * never edit this file, add one.
 */
export async function up(knex: Knex, idem: MigrationContext): Promise<void> {
  await knex.schema.alterTable('post_ledger', (t) => {
    // alterTable's builder adds columns exactly as createTable's does.
    idem.addColumn(t as unknown as Knex.CreateTableBuilder, 'remote_duplicates', column.text({ nullable: true }));
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('post_ledger', (t) => {
    t.dropColumn('remote_duplicates');
  });
}
