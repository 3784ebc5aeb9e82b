import { migrateLatest } from '../../migration/migrator.ts';
import { withSession } from '../session.ts';

/** `idem migrate`: framework and pipeline migrations to the latest. */
export async function migrateCommand(): Promise<number> {
  return withSession(
    async ({ db, config, logger }) => {
      const applied = await migrateLatest(db, config.projectDir);
      logger.info({ database: db.description, applied }, applied.length ? `applied ${applied.length} migration(s)` : 'already up to date');
      return 0;
    },
    { migrated: false },
  );
}
