import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rerunWhileLocked } from '../../src/child-process/run-idem-child-when-unlocked.ts';
import { idemChildResult, startIdemChild, type IdemChild, type IdemChildResult } from '../../src/child-process/start-idem-child.ts';

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

/**
 * Runs the CLI to completion: `main` in this process (its own environment and captured output;
 * see `CommandIo`) where no process boundary is the subject, else a child ({@link startCli}).
 * A child runs a command that can end the process (a `kill` failpoint), one that starts child
 * processes of its own (`--workers`, `prove`), one on another Node (`node`) or with Node options
 * (`NODE_OPTIONS`: an import hook that records what a process loads), and any command
 * when `IDEM_TEST_CHILD` is set (a recorded pid, settings a module reads when it loads), and the
 * commands of a project one of whose modules a test rewrote ({@link moduleRewritten}), which this
 * process would not load again. Every test of how the process itself ends (signals, pipes,
 * `bin/idem.js`) uses {@link startCli}, and every test of the exit code a scheduler reads
 * {@link runCliChild}.
 */
export function runCli(args: readonly string[], env: Record<string, string | undefined> = {}, node = process.execPath): Promise<CliResult> {
  if (node !== process.execPath || !runsInProcess(args, env)) return startCli(args, env, node).done;
  return runInProcess(args, cliEnv(env));
}

/** Project directories (IDEM_PROJECT_DIR) one of whose modules a test rewrote: see {@link moduleRewritten}. */
const rewrittenProjects = new Set<string>();

/**
 * Says that a module of the project in `projectDir` was written again: this process may hold the
 * old one (a process loads a module once), so from now on {@link runCli} runs that project's
 * commands as child processes, which load it afresh.
 */
export function moduleRewritten(projectDir: string): void {
  rewrittenProjects.add(path.resolve(projectDir));
}

/** Runs the CLI as a real child process to its end ({@link startCli}): for a test whose subject is the exit code a scheduler reads. */
export function runCliChild(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

/** Whether {@link runCli} runs `idem …args` in this process. */
function runsInProcess(args: readonly string[], env: Record<string, string | undefined>): boolean {
  if (process.env.IDEM_TEST_CHILD !== undefined || env.IDEM_TEST_CHILD !== undefined) return false;
  if (env.IDEM_PROJECT_DIR !== undefined && rewrittenProjects.has(path.resolve(PROJECT_DIR, env.IDEM_PROJECT_DIR))) return false;
  if (/=kill\b/.test(env.IDEM_FAILPOINTS ?? '') || env.NODE_OPTIONS !== undefined) return false;
  return !args.includes('--workers') && !['prove', 'ui', 'sandbox-api'].includes(args[0] ?? '');
}

/** Runs `main(args, io)` in this process, with `env` as the command's whole environment and its output captured, read as a child's would be. */
export async function runInProcess(args: readonly string[], env: Record<string, string | undefined>): Promise<CliResult> {
  const started = performance.now();
  const { main } = await import('../../src/cli/main.ts');
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    env,
    cwd: PROJECT_DIR,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return idemChildResult({ code, signal: null, stdout, stderr, started });
}

/** The first `stage: 'summary'` log line of a run. */
export function summaryOf(result: CliResult): Record<string, any> {
  const summary = result.logs.find((line) => line.stage === 'summary');
  if (!summary) throw new Error(`no summary line; exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return summary as Record<string, any>;
}

/**
 * Runs the CLI ({@link runCli}), and again every 300 ms while it exits 75 (for up to 15 s): after a
 * SIGKILL on SQLite the app lock is free only once the dead run's lease expires (tests set
 * `IDEM_LOCK_LEASE_MS` low).
 */
export function runCliWhenUnlocked(args: readonly string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return rerunWhileLocked(() => runCli(args, env));
}
