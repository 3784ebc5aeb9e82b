import { setMaxListeners } from 'node:events';
import { StoppedError } from '../errors/stopped-error.ts';

/**
 * The signals that ask idem to stop: a scheduler's SIGTERM (Kubernetes, systemd, `docker stop`),
 * Ctrl-C's SIGINT, and SIGHUP (the terminal closed).
 */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/** Why a polite stop became a stop at once. */
export type HardStopReason = { readonly kind: 'second-signal'; readonly signal: NodeJS.Signals } | { readonly kind: 'grace-ended'; readonly graceMs: number };

/** What a {@link PoliteStop} does at each step, given once the command can act on it (see {@link PoliteStop.arm}). */
export interface PoliteStopOptions {
  /** How long the work in flight may take after the first signal, in ms (`IDEM_STOP_GRACE_MS`). */
  readonly graceMs: number;
  /** Called at the first signal, after {@link PoliteStop.signal} is aborted (to log it). */
  readonly onStop?: (signal: NodeJS.Signals) => void;
  /**
   * Called at a second signal, or when the grace has passed with the work still going: it must
   * end the process at once (the command line logs and exits 75). Called at most once.
   */
  readonly onHardStop: (reason: HardStopReason) => void;
}

/**
 * A polite stop, the way Kubernetes, systemd and a terminal ask: the first stop signal aborts
 * {@link signal} with a `StoppedError`, which the run and the post stage read at every stage
 * boundary and before every claim and every request (they stop claiming and starting new work,
 * let what is in flight finish, record the attempt `stopped`, release the lock and exit 75); a
 * second signal, or the end of the grace period, calls `onHardStop`, which ends the process at
 * once (a rerun is then as safe as after a kill).
 *
 * One per process, installed as early as the command line can (`install` listens to
 * {@link STOP_SIGNALS}), and armed once the command has its settings and logger (`arm`): a
 * signal that came before is acted on then, so a process just starting is stopped politely too.
 * `uninstall` gives the signals back to Node's defaults.
 */
export class PoliteStop {
  readonly #controller = new AbortController();
  readonly #listeners = new Set<(signal: NodeJS.Signals) => void>();
  #options: PoliteStopOptions | undefined;
  #signals: NodeJS.Signals[] = [];
  #graceTimer: NodeJS.Timeout | undefined;
  #hardStopped = false;
  readonly #onSignal = (signal: NodeJS.Signals): void => this.receive(signal);

  constructor() {
    // Every retry wait and every post stage wait listens to it meanwhile: no leak, a crowd.
    setMaxListeners(0, this.#controller.signal);
  }

  /** Aborted at the first stop signal; its `reason` is the `StoppedError` to throw (`signal.throwIfAborted()`). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Starts listening to the stop signals. */
  install(): this {
    for (const signal of STOP_SIGNALS) process.on(signal, this.#onSignal);
    return this;
  }

  /** Stops listening (a signal after this ends the process as Node's default does), and ends the grace timer. */
  uninstall(): void {
    for (const signal of STOP_SIGNALS) process.removeListener(signal, this.#onSignal);
    clearTimeout(this.#graceTimer);
  }

  /** Gives the stop its grace and what it does; the signals received before are acted on now. */
  arm(options: PoliteStopOptions): this {
    this.#options = options;
    const [first, second] = this.#signals;
    if (first !== undefined) this.#startGrace(first);
    if (second !== undefined) this.#hardStop({ kind: 'second-signal', signal: second });
    return this;
  }

  /**
   * Calls `listener` with every stop signal received from now on, the first and any later one,
   * before this process acts on it (`idem run --workers` passes each on to its `idem work` children).
   * @returns a function that removes the listener.
   */
  onSignal(listener: (signal: NodeJS.Signals) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** What the process does with a stop signal (what `install` listens with). */
  receive(signal: NodeJS.Signals): void {
    for (const listener of this.#listeners) listener(signal);
    this.#signals.push(signal);
    if (!this.#controller.signal.aborted) {
      this.#controller.abort(new StoppedError(signal));
      if (this.#options) this.#startGrace(signal);
      return;
    }
    if (this.#options) this.#hardStop({ kind: 'second-signal', signal });
  }

  #startGrace(signal: NodeJS.Signals): void {
    const { graceMs, onStop } = this.#options!;
    this.#graceTimer = setTimeout(() => this.#hardStop({ kind: 'grace-ended', graceMs }), graceMs);
    // The grace never keeps a finished process alive.
    this.#graceTimer.unref();
    onStop?.(signal);
  }

  #hardStop(reason: HardStopReason): void {
    if (this.#hardStopped) return;
    this.#hardStopped = true;
    this.#options!.onHardStop(reason);
  }
}
