import { pino, type Logger } from 'pino';
import { commandIo } from '../command-io/command-io.ts';
import { redactSecrets } from '../text/redact-secrets.ts';

/**
 * Paths pino redacts from every log line: credentials in headers and settings. Database URLs are
 * logged only through `redactUrl`.
 */
export const REDACTED_PATHS = [
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'apiKey', '*.apiKey', 'password', '*.password', 'headers["x-api-key"]', '*.headers["x-api-key"]',
];

/**
 * The root logger: pino JSON lines on the command's stderr (`commandIo`), written synchronously so
 * no line is lost when the process exits; pino-pretty when that stderr is a terminal. stdout carries a command's data only (tables,
 * `--json`), so a parser of either never meets the other (docs/operating.md, "Logs").
 */
export async function createLogger(options: { level: string; pretty?: boolean }): Promise<Logger> {
  // Every line, whatever field or message holds a URL, leaves with its secrets redacted.
  const base = { level: options.level, base: undefined, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, hooks: { streamWrite: redactSecrets } };
  const { stderr } = commandIo();
  const pretty = options.pretty ?? stderr.isTTY === true;
  if (pretty) {
    const { default: prettyStream } = await import('pino-pretty');
    return pino(base, prettyStream({ colorize: true, sync: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss' }));
  }
  // The process's stderr is written to its file descriptor at once; a caller's capture (see CommandIo) as it is.
  return pino(base, stderr === process.stderr ? pino.destination({ fd: 2, sync: true }) : stderr);
}
