import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../config/load-config.ts';
import type { ResolvedConfig } from '../../config/resolved-config.ts';
import { sqliteFileOf } from '../../dialect/create-dialect-adapter.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import type { PipelineDefinition } from '../../pipeline/pipeline-definition.ts';
import { listPipelineNames, loadPipeline } from '../../pipeline/load-pipeline.ts';
import { startUiServer } from '../../ui/start-ui-server.ts';
import { withSession } from '../session.ts';
import { commandIo } from '../../command-io/command-io.ts';

/**
 * The database `idem ui` reads: `DATABASE_URL`'s, or, when it is unset and the default SQLite file
 * does not exist but `npm run demo`'s does (`var/demo.sqlite3`), the demo's, said on stdout.
 */
function uiConfig(): ResolvedConfig {
  const config = loadConfig();
  if (commandIo().env.DATABASE_URL !== undefined) return config;
  const file = sqliteFileOf(config.databaseUrl, config.projectDir);
  const demo = path.join(config.projectDir, 'var', 'demo.sqlite3');
  if (file === undefined || existsSync(file) || !existsSync(demo)) return config;
  commandIo().stdout.write(`idem ui: ${file} does not exist; showing the demo's database, ${demo} (set DATABASE_URL for another)\n`);
  return { ...config, databaseUrl: `sqlite:${demo}` };
}

/**
 * `idem ui [--port N] [--host H]`: serves the read-only operator page over the database the
 * CLI uses, until SIGINT or SIGTERM (then exits 0). Any address but loopback needs
 * `IDEM_UI_TOKEN`. A pipeline that does not load is logged and shown from its runs alone.
 * Right after `npm run demo`, with no database of its own yet, it shows the demo's.
 */
export async function uiCommand(options: { port: number; host: string }): Promise<Outcome> {
  const config = uiConfig();
  return withSession<Outcome>(
    async ({ db, logger }) => {
      const pipelines = new Map<string, PipelineDefinition>();
      for (const name of listPipelineNames(config.projectDir)) {
        try {
          pipelines.set(name, await loadPipeline(config.projectDir, name));
        } catch (error) {
          logger.warn({ pipeline: name, err: error }, `pipeline ${name} does not load; the page shows its runs only`);
        }
      }
      const ctx = {
        db,
        config,
        pipelines,
        now: () => (config.now ?? new Date()).getTime(),
        staleMs: Math.max(config.lockLeaseMs, config.heartbeatMs * 3),
      };
      // Listening for the stop signals before the URL is printed: whoever reads it may stop the page at once.
      const stopped = new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      const token = commandIo().env.IDEM_UI_TOKEN || undefined;
      const server = await startUiServer(ctx, { host: options.host, port: options.port, ...(token ? { token } : {}), onError: (err) => logger.error({ err }, 'idem ui: a view failed') });
      commandIo().stdout.write(`idem ui: serving ${server.url} (read-only; Ctrl-C stops it)\n`);
      await stopped;
      await server.close();
      return 'completed';
    },
    { config, existing: true },
  );
}
