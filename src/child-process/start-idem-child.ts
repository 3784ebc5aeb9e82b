import { spawn, type ChildProcess } from 'node:child_process';
import { idemBinPath } from './idem-bin-path.ts';

/** How one `idem` child process ended, with what it printed. */
export interface IdemChildResult {
  /** Exit code, or null when a signal ended it. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stderr's JSON log lines, parsed; other output (an `idem: …` error line, a line cut short by a kill) is left out. */
  readonly logs: readonly Record<string, unknown>[];
  /** The last `stage: 'summary'` log line, when the command got that far. */
  readonly summary: Readonly<Record<string, unknown>> | undefined;
  /** Wall time from spawn to exit, in ms. */
  readonly ms: number;
}

/** A started `idem` child process and its ending. */
export interface IdemChild {
  readonly child: ChildProcess;
  readonly done: Promise<IdemChildResult>;
}

/** Where a child runs besides its environment. */
export interface IdemChildOptions {
  /** Working directory; default this process's. */
  readonly cwd?: string;
  /** The Node binary. @defaultValue the one running this process (`process.execPath`) */
  readonly node?: string;
}

/**
 * Starts `idem …args` as a real child process (this Node + idem's `bin/idem.js`), the way
 * a scheduler runs it, so a SIGKILL is a real crash: nothing in this process is touched by it.
 * stderr is a pipe, so the child logs JSON lines (on stderr) and draws no progress bars.
 * @param env the child's whole environment (nothing is inherited implicitly); an undefined value leaves that variable unset.
 */
export function startIdemChild(args: readonly string[], env: Readonly<Record<string, string | undefined>>, options: IdemChildOptions = {}): IdemChild {
  const started = performance.now();
  const child = spawn(options.node ?? process.execPath, [idemBinPath(), ...args], { env, ...(options.cwd ? { cwd: options.cwd } : {}), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<IdemChildResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve(idemChildResult({ code, signal, stdout, stderr, started }));
    });
  });
  return { child, done };
}

/** Runs `idem …args` to its end (see {@link startIdemChild}). */
export function runIdemChild(args: readonly string[], env: Readonly<Record<string, string | undefined>>, options: IdemChildOptions = {}): Promise<IdemChildResult> {
  return startIdemChild(args, env, options).done;
}

/**
 * How a command ended, from its exit code or signal and what it printed: its log lines parsed
 * (also for `main` run in this process, where no child is involved).
 * @param ending.started `performance.now()` when the command started
 */
export function idemChildResult(ending: { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; started: number }): IdemChildResult {
  const { code, signal, stdout, stderr, started } = ending;
  const logs = logLines(stderr);
  return { code, signal, stdout, stderr, logs, summary: logs.findLast((line) => line.stage === 'summary'), ms: Math.round(performance.now() - started) };
}

/** Log lines are one JSON object each. */
function logLines(stderr: string): Record<string, unknown>[] {
  return stderr.split('\n').flatMap((line) => {
    if (!line.startsWith('{"')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
