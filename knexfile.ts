// For the knex CLI and other tools: the same connection idem uses, built from src/config.
// Migrations run through `idem migrate` (they take idem's MigrationContext as a second argument).
import { loadConfig } from './src/config/load-config.ts';
import { createDialectAdapter } from './src/dialect/create-dialect-adapter.ts';

const config = loadConfig();
export const development = (await createDialectAdapter(config.databaseUrl, config.projectDir, config)).knexConfig();
