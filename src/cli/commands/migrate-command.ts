import { loadPipeline, listPipelineNames } from '../../pipeline/load-pipeline.ts';
import { makeMigration } from '../../migration/make-migration.ts';
import { formatSchemaDrift } from '../../migration/format-schema-drift.ts';
import { migrateLatest } from '../../migration/migrator.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { withSession } from '../session.ts';
import { commandIo } from '../../command-io/command-io.ts';

/** Flags of `idem migrate`. */
export interface MigrateOptions {
  /** `--make [NAME]`: `true` without a name. */
  readonly make?: string | boolean;
}

/**
 * `idem migrate`: framework and pipeline migrations to the latest. `idem migrate --make [NAME]`:
 * on a migrated database, writes a new migration from the difference between the pipelines'
 * columns and the database (see `makeMigration`), and prints it; applies nothing.
 */
export async function migrateCommand(options: MigrateOptions = {}): Promise<Outcome> {
  if (options.make !== undefined && options.make !== false) {
    const name = typeof options.make === 'string' ? options.make : undefined;
    return withSession<Outcome>(async ({ db, config, logger }) => {
      const pipelines = [];
      for (const pipelineName of listPipelineNames(config.projectDir)) pipelines.push(await loadPipeline(config.projectDir, pipelineName));
      const made = await makeMigration(db, config.projectDir, pipelines, name);
      if (!made.file) {
        commandIo().stdout.write("no differences: every pipeline's columns match the database; no migration written\n");
        return 'completed';
      }
      logger.info({ database: db.description, file: made.file, differences: made.differences.length }, `wrote ${made.file}`);
      commandIo().stdout.write(`${formatSchemaDrift(made.differences)}wrote ${made.file}: review it, then run idem migrate\n`);
      return 'completed';
    });
  }
  return withSession<Outcome>(
    async ({ db, config, logger }) => {
      const applied = await migrateLatest(db, config.projectDir, { lockWaitMs: config.migrateLockWaitMs, onNotice: (message) => logger.warn(message) });
      logger.info({ database: db.description, applied }, applied.length ? `applied ${applied.length} migration(s)` : 'already up to date');
      return 'completed';
    },
    { migrated: false },
  );
}
