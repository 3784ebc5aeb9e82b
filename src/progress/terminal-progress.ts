import cliProgress from 'cli-progress';
import type { Progress, ProgressFactory } from './progress.ts';

/** Redraws at most this often, in ms: a fast extract must not spend its time drawing. */
const REDRAW_MS = 200;

/**
 * Progress bars on stderr through cli-progress: rows (or items) per second, and the ETA where
 * the total is known. Use only when stderr is a terminal; stdout keeps the log lines.
 */
export const terminalProgress: ProgressFactory = (stage, total, unit): Progress => {
  const started = performance.now();
  const known = total !== undefined && total > 0;
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      fps: 1000 / REDRAW_MS,
      hideCursor: true,
      clearOnComplete: false,
      format: known
        ? `${stage.padEnd(8)} [{bar}] {percentage}% | {count} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`
        : `${stage.padEnd(8)} {count} ${unit} | {rate} ${unit}/s`,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(known ? total : 1, 0, { count: 0, rate: 0 });
  return {
    update(value, count) {
      const seconds = (performance.now() - started) / 1000;
      bar.update(known ? value : 0, { count, rate: seconds > 0 ? Math.round(count / seconds) : 0 });
    },
    stop() {
      bar.stop();
    },
  };
};
