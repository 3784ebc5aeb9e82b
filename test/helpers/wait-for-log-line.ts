import type { CliProcess } from './run-cli.ts';

/**
 * Waits until a running CLI child logs a JSON line (on stderr) that `matches`, and returns it: a
 * condition to wait on instead of a fixed sleep.
 * @throws Error (rejects) when the child ends first, with what it printed.
 */
export function waitForLogLine(cli: CliProcess, matches: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let seen = '';
    let pending = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const text of lines) {
        if (!text.startsWith('{"')) continue;
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text) as Record<string, unknown>;
        } catch {
          continue;
        }
        if (matches(line)) {
          done();
          resolve(line);
          return;
        }
      }
    };
    const onClose = () => {
      done();
      reject(new Error(`the child ended before the awaited log line\n${seen}`));
    };
    const done = () => {
      cli.child.stderr!.off('data', onData);
      cli.child.off('close', onClose);
    };
    cli.child.stderr!.on('data', onData);
    cli.child.on('close', onClose);
  });
}
