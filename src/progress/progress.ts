/**
 * Progress of one long stage (extract, post), shown to a person on a terminal. `value` and
 * `total` share a unit (bytes of a file, items to post); `count` is what the person reads (rows,
 * items) and its rate per second.
 */
export interface Progress {
  update(value: number, count: number): void;
  stop(): void;
}

/** Starts a {@link Progress} for a stage; `total` undefined when unknown (no ETA then). */
export type ProgressFactory = (stage: string, total: number | undefined, unit: string) => Progress;

/** A progress that shows nothing: not a terminal, or tests. */
export const SILENT_PROGRESS: ProgressFactory = () => ({ update: () => undefined, stop: () => undefined });
