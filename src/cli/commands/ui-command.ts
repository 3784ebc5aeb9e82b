import { loadConfig } from '../../config/load-config.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import type { PipelineDefinition } from '../../pipeline/pipeline-definition.ts';
import { listPipelineNames, loadPipeline } from '../../pipeline/load-pipeline.ts';
import { startUiServer } from '../../ui/start-ui-server.ts';
import { withSession } from '../session.ts';

/**
 * `idem ui [--port N] [--host H]`: serves the read-only operator page over the database the
 * CLI uses, until SIGINT or SIGTERM (then exits 0). Any address but loopback needs
 * `IDEM_UI_TOKEN`. A pipeline that does not load is logged and shown from its runs alone.
 */
export async function uiCommand(options: { port: number; host: string }): Promise<Outcome> {
  const config = loadConfig();
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
      const token = process.env.IDEM_UI_TOKEN || undefined;
      const server = await startUiServer(ctx, { host: options.host, port: options.port, ...(token ? { token } : {}), onError: (err) => logger.error({ err }, 'idem ui: a view failed') });
      process.stdout.write(`idem ui: serving ${server.url} (read-only; Ctrl-C stops it)\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
      return 'completed';
    },
    { config, existing: true },
  );
}
