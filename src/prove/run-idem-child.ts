import { spawn, type ChildProcess } from 'node:child_process';
import { idemBinPath } from '../runner/idem-bin-path.ts';

/** How one `idem` child process ended, with what it printed. */
export interface IdemChildResult {
  /** Exit code, or null when a signal ended it. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The run's final `stage: 'summary'` log line, when it got that far. */
  readonly summary: Readonly<Record<string, unknown>> | undefined;
  /** Wall time from spawn to exit, in ms. */
  readonly ms: number;
}

/** A started `idem` child process and its ending. */
export interface IdemChild {
  readonly process: ChildProcess;
  readonly done: Promise<IdemChildResult>;
}

/**
 * Starts `idem …args` as a real child process (`process.execPath` + idem's `bin/idem.js`), the way
 * a scheduler runs it, so a SIGKILL is a real crash: nothing in this process is touched by it.
 * stdout is a pipe, so the child logs JSON lines and draws no progress bars.
 * @param env the child's whole environment (nothing is inherited implicitly).
 */
export function startIdemChild(args: readonly string[], env: Readonly<Record<string, string>>): IdemChild {
  const started = performance.now();
  const child = spawn(process.execPath, [idemBinPath(), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<IdemChildResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({ code, signal, stdout, stderr, summary: summaryLine(stdout), ms: Math.round(performance.now() - started) });
    });
  });
  return { process: child, done };
}

/** Runs `idem …args` to its end. */
export function runIdemChild(args: readonly string[], env: Readonly<Record<string, string>>): Promise<IdemChildResult> {
  return startIdemChild(args, env).done;
}

/**
 * Runs `idem …args`, and again every `pauseMs` while it exits 75: after a SIGKILL on SQLite the
 * app lock frees itself only when the dead run's lease expires.
 * @param maxWaitMs how long to keep trying before returning the last 75. @defaultValue 15000
 * @param pauseMs pause between tries. @defaultValue 300
 */
export async function runIdemChildWhenUnlocked(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  options: { maxWaitMs?: number; pauseMs?: number } = {},
): Promise<IdemChildResult> {
  const deadline = performance.now() + (options.maxWaitMs ?? 15_000);
  let result = await runIdemChild(args, env);
  while (result.code === 75 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 300));
    result = await runIdemChild(args, env);
  }
  return result;
}

function summaryLine(stdout: string): Record<string, unknown> | undefined {
  for (const line of stdout.split('\n').reverse()) {
    if (!line.startsWith('{"') || !line.includes('"stage":"summary"')) continue;
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      // A line cut short by a kill: keep looking.
    }
  }
  return undefined;
}
