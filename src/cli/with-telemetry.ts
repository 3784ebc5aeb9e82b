import type { ResolvedConfig } from '../config/resolved-config.ts';
import { coerceError } from '../errors/coerce-error.ts';
import { IdemError } from '../errors/idem-error.ts';
import { createLogger } from '../logging/create-logger.ts';
import { exitCodeOf, type Outcome } from '../outcome/outcome.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import { idemVersion } from './idem-version.ts';

/**
 * Runs a command that runs `pipeline` (`idem run`, `backfill`, …; `options.command` `work` for
 * `idem work`) with OpenTelemetry export when `config.telemetry` asks for
 * it (docs/operating.md, "Telemetry"): the SDK is loaded and started here, and only then. An
 * error that ends the command outside any run (the database unreachable, a pipeline that does not
 * load) is recorded with its outcome and exit code, then thrown on. At the end what is left is
 * exported, within `TELEMETRY_FLUSH_MS`; telemetry that cannot start is a warning, never the
 * command's failure.
 */
export async function withTelemetry(
  config: ResolvedConfig,
  pipeline: string,
  work: (telemetry: Telemetry | undefined) => Promise<Outcome>,
  options: { readonly command?: 'run' | 'work' } = {},
): Promise<Outcome> {
  if (!config.telemetry) return work(undefined);
  const log = await createLogger({ level: config.logLevel });
  let telemetry: Telemetry | undefined;
  try {
    const { startTelemetry } = await import('../telemetry/start-telemetry.ts');
    telemetry = await startTelemetry(config.telemetry, { serviceVersion: idemVersion(), log });
  } catch (caught) {
    log.warn({ err: coerceError(caught) }, 'telemetry: the OpenTelemetry SDK did not start; the command runs without it');
  }
  try {
    return await work(telemetry);
  } catch (caught) {
    const error = coerceError(caught);
    const outcome: Outcome = error instanceof IdemError ? error.outcome : 'failed';
    telemetry?.commandFailed({ pipeline, outcome, exitCode: exitCodeOf(outcome), error, ...(options.command ? { command: options.command } : {}) });
    throw caught;
  } finally {
    await telemetry?.shutdown();
  }
}
