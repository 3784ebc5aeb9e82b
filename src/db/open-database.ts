import knexFactory from 'knex';
import { redactUrl } from '../config/redact-url.ts';
import type { ResolvedConfig } from '../config/resolved-config.ts';
import { createDialectAdapter } from '../dialect/create-dialect-adapter.ts';
import type { Database } from './database.ts';

/**
 * Where knex's own messages go instead of `console.log` (stdout, which carries only idem's
 * output): nowhere. Every failure they describe also reaches idem as a thrown error.
 */
const QUIET_KNEX_LOG = { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined };

/** Opens the configured database (a knex pool; nothing connects until the first query). */
export async function openDatabase(
  config: Pick<ResolvedConfig, 'databaseUrl' | 'projectDir'> & Partial<Pick<ResolvedConfig, 'mssqlRequestTimeoutMs'>>,
): Promise<Database> {
  const adapter = await createDialectAdapter(config.databaseUrl, config.projectDir, config);
  const knex = knexFactory({ log: QUIET_KNEX_LOG, ...adapter.knexConfig() });
  return {
    knex,
    adapter,
    description: redactUrl(config.databaseUrl),
    async close() {
      await knex.destroy();
      await adapter.close();
    },
  };
}
