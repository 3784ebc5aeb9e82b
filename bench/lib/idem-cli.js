// Runs the built idem CLI (`node bin/idem.js`) as a child process with the bench's settings.
import path from 'node:path';
import { runTimed } from './child-process.js';
import { runSummaries } from './run-summaries.js';

/**
 * The environment of an idem child: the caller's, minus any ambient project dir, source dir or
 * destinations, plus `DATABASE_URL` and the sandbox as the only destination.
 * @param {{ databaseUrl: string, sandboxUrl: string, concurrency: number, sourceDir?: string }} settings
 */
export function idemEnv({ databaseUrl, sandboxUrl, concurrency, sourceDir }) {
  const env = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' };
  delete env.IDEM_PROJECT_DIR;
  delete env.IDEM_SOURCE_DIR;
  delete env.IDEM_FAILPOINTS;
  env.IDEM_DESTINATIONS = JSON.stringify({ 'sandbox-accounting': { url: sandboxUrl, http: { concurrency } } });
  if (sourceDir) env.IDEM_SOURCE_DIR = sourceDir;
  return env;
}

/**
 * Runs `idem ...args` and measures it (see runTimed).
 * @param {{ repo: string, tmp: string }} ctx @param {string[]} args @param {NodeJS.ProcessEnv} env
 * @param {{ label?: string, measureRss?: boolean, timeoutMs?: number }} [options]
 */
export function runIdem(ctx, args, env, { label = args.slice(0, 2).join('-'), measureRss = false, timeoutMs } = {}) {
  return runTimed(process.execPath, [path.join(ctx.repo, 'bin', 'idem.js'), ...args], { env, cwd: ctx.repo, logDir: ctx.tmp, label, measureRss, timeoutMs });
}

/** `idem migrate` on `env`'s database. @throws Error when it fails. */
export async function migrate(ctx, env) {
  mustSucceedIdem(await runIdem(ctx, ['migrate'], env, { label: 'migrate' }), 'idem migrate');
}

/**
 * Returns `result` when idem exited 0.
 * @throws Error naming `what`, the exit code, the error of the last summary line (or stderr's
 *   last line) and the log file otherwise.
 */
export function mustSucceedIdem(result, what) {
  if (result.code === 0) return result;
  const err = runSummaries(result.output).at(-1)?.err;
  const lastPlain = result.output.trim().split('\n').filter((l) => !l.startsWith('{')).at(-1);
  const reason = err ? `${err.code ? `${err.code}: ` : ''}${err.message}` : lastPlain ?? 'no error in its log (killed?)';
  throw new Error(`${what} exited with ${result.code}: ${String(reason).slice(0, 400)} (log ${result.logFile})`);
}
