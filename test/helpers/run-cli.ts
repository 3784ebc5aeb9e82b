import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runIdemChildWhenUnlocked } from '../../src/child-process/run-idem-child-when-unlocked.ts';
import { startIdemChild, type IdemChild, type IdemChildResult } from '../../src/child-process/start-idem-child.ts';

export const PROJECT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** How a CLI child ended: exit code or signal, its output and its parsed JSON log lines (`logs`). */
export type CliResult = IdemChildResult;
/** A started CLI child (`child`) and its ending (`done`). */
export type CliProcess = IdemChild;

/** A child's environment: PATH and HOME of the test process, `LOG_LEVEL=info`, then `env`. */
function cliEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...env };
}

/**
 * Starts `node bin/idem.js …args` in the project directory as a real child process (the built CLI in dist/).
 * @param node the Node binary. @defaultValue the one running the suite (`process.execPath`)
 */
export function startCli(args: readonly string[], env: Record<string, string | undefined> = {}, node = process.execPath): CliProcess {
  return startIdemChild(args, cliEnv(env), { cwd: PROJECT_DIR, node });
}

/** Runs the CLI to completion. */
export function runCli(args: readonly string[], env: Record<string, string | undefined> = {}, node = process.execPath): Promise<CliResult> {
  return startCli(args, env, node).done;
}

/** The first `stage: 'summary'` log line of a run. */
export function summaryOf(result: CliResult): Record<string, any> {
  const summary = result.logs.find((line) => line.stage === 'summary');
  if (!summary) throw new Error(`no summary line; exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return summary as Record<string, any>;
}

/**
 * Runs the CLI, and again every 300 ms while it exits 75 (for up to 15 s): after a SIGKILL on
 * SQLite the app lock is free only once the dead run's lease expires (tests set
 * `IDEM_LOCK_LEASE_MS` low).
 */
export function runCliWhenUnlocked(args: readonly string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return runIdemChildWhenUnlocked(args, cliEnv(env), { cwd: PROJECT_DIR });
}
