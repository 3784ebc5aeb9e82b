import { AsyncLocalStorage } from 'node:async_hooks';

/** Where a command writes text: `process.stdout`/`process.stderr`, or a caller's capture. */
export interface TextSink {
  /** Writes `text` (UTF-8); synchronous enough that a line written before a return is not lost. */
  write(text: string): unknown;
  /** Whether a person reads it at a terminal (progress bars, pretty logs); absent means no. */
  readonly isTTY?: boolean;
}

/**
 * The process-wide things one command reads and writes: its environment, working directory,
 * stdout (a command's data: tables, `--json`) and stderr (log lines, `idem: …` errors).
 * `bin/idem.js` runs a command with the process's own ({@link processIo}); a caller that runs
 * `main` in its own process (idem's test suite, where no process boundary is the subject) gives
 * each command its own, so commands running side by side neither share settings nor mix output.
 * What stays the process's: its pid (in lock owners and `job_runs`), signals (the polite stop),
 * `TMPDIR` (`os.tmpdir()`: the external sort, scratch files) and the `OTEL_*` variables the
 * OpenTelemetry SDK reads itself.
 */
export interface CommandIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
}

/** The process's own environment, working directory and streams (read when asked: `cwd` may change). */
export function processIo(): CommandIo {
  return { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr };
}

const current = new AsyncLocalStorage<CommandIo>();

/** Runs `work` with `io` as the {@link commandIo} of everything it does, also what it leaves running (timers, requests). */
export function runWithCommandIo<T>(io: CommandIo, work: () => Promise<T>): Promise<T> {
  return current.run(io, work);
}

/** The running command's {@link CommandIo}: the one `runWithCommandIo` gave, else the process's own. */
export function commandIo(): CommandIo {
  return current.getStore() ?? processIo();
}
