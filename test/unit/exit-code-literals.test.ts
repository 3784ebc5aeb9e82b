import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../helpers/run-cli.ts';

/** The exit codes idem uses, as literals. */
const CODE = '(?:0|1|2|3|75)';

/** Exit-code literals anywhere in src/: compared, assigned, passed, or tabled. */
const EVERYWHERE: readonly RegExp[] = [
  new RegExp(`\\bexit\\w*\\s*(?:[!=]==?|:|=)\\s*${CODE}\\b`, 'i'), // exitCode: 2, exitCode === 0, exitCode: 0 | 1
  new RegExp(`\\b${CODE}\\s*[!=]==?\\s*[\\w.?]*exit\\w*`, 'i'), // 0 === result.exitCode
  new RegExp(`\\bcode\\s*[!=]==?\\s*${CODE}\\b`), // a child's code !== 3
  new RegExp(`\\bfinish\\(\\s*'[^']*',\\s*\\d`), // finish('lock-held', 75, …)
  new RegExp(`\\bprocess\\.exit(?:Code)?\\s*[(=]\\s*\\d`), // process.exit(1)
  new RegExp(`\\b(?:ok|needsOperator|lockHeld|retryLater)\\s*:\\s*${CODE}\\b`), // { ok: 0, lockHeld: 75 }
  new RegExp(`(?:\\bcode\\b|exit).*\\?\\s*${CODE}\\s*:\\s*${CODE}\\b`, 'i'), // exitCode: n > 0 ? 3 : 0
];

/** In src/cli/ also a command's bare return of a code. */
const IN_CLI: readonly RegExp[] = [new RegExp(`\\breturn\\s+${CODE}\\s*;`), new RegExp(`\\?\\s*${CODE}\\s*:\\s*${CODE}\\b`)];

/** The lines of a source file (path relative to the project) that hold an exit-code literal, as `file:line: text`. */
function findExitCodeLiterals(file: string, text: string): string[] {
  const patterns = file.startsWith('src/cli/') ? [...EVERYWHERE, ...IN_CLI] : EVERYWHERE;
  return text.split('\n').flatMap((line, i) => (patterns.some((p) => p.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(PROJECT_DIR, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}


describe('exit codes come from src/outcome/outcome.ts only', () => {
  it('finds the literals this check exists for, and leaves other numbers alone', () => {
    const found = (file: string, line: string): boolean => findExitCodeLiterals(file, line).length > 0;
    // Lines as they were before the outcome table.
    for (const line of [
      "export const EXIT = { ok: 0, failed: 1, usage: 2, needsOperator: 3, lockHeld: 75 } as const;",
      "super(message, { code: 'USAGE', exitCode: 2 });",
      "readonly exitCode: 0 | 1 | 3;",
      "else if (exitCode === 0) log.info(summary, message);",
      "if (!attempt.acquired) return await finish('lock-held', 75, new LockHeldError(lockName, attempt.holder));",
      "return await finish('failed', error instanceof IdemError && error.exitCode !== 75 ? error.exitCode : 1, error);",
      "return { results, exitCode: counts.needsReview > 0 ? 3 : 0 };",
      "if (code !== 0 && code !== 3) log.warn({ pid: child.pid, code, signal }, 'exited');",
      'process.exit(2);',
    ]) {
      expect(found('src/runner/x.ts', line), line).toBe(true);
    }
    expect(found('src/cli/commands/x-command.ts', '      return 0;')).toBe(true);
    expect(found('src/cli/commands/x-command.ts', "  return checks.some((c) => c.result === 'fail') ? 1 : 0;")).toBe(true);
    for (const line of [
      "else if (exitCode === EXIT_CODES.ok) log.info(summary, message);",
      "if (code === -1) return { kind: 'held' };",
      "const counts: Tally = { sent: 0, posted: 0, found: 0, failed: 0, review: 0 };",
      "this.#sorted ??= [...rows].sort((a, b) => (a.stock_code < b.stock_code ? -1 : a.stock_code > b.stock_code ? 1 : 0));",
      "if (child.exitCode === null && child.signalCode === null) child.kill(signal);",
    ]) {
      expect(found('src/runner/x.ts', line), line).toBe(false);
    }
  });

  it('has no exit-code literal in src/ outside src/outcome/', () => {
    const files = sourceFiles('src').filter((file) => !file.startsWith('src/outcome/'));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => findExitCodeLiterals(file, readFileSync(path.join(PROJECT_DIR, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
