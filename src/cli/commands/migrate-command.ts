import { migrateLatest } from '../../migration/migrator.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { withSession } from '../session.ts';

/** `idem migrate`: framework and pipeline migrations to the latest. */
export async function migrateCommand(): Promise<Outcome> {
  return withSession<Outcome>(
    async ({ db, config, logger }) => {
      const applied = await migrateLatest(db, config.projectDir);
      logger.info({ database: db.description, applied }, applied.length ? `applied ${applied.length} migration(s)` : 'already up to date');
      return 'completed';
    },
    { migrated: false },
  );
}
