import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PROJECT_DIR } from './run-cli.ts';

export const FIXTURE_DIR = path.join(PROJECT_DIR, 'fixtures', 'online-retail');

/** The lines of a bundled daily file (LF, no trailing blank line). */
export function fixtureLines(date: string): string[] {
  return readFileSync(path.join(FIXTURE_DIR, `${date}.csv`), 'utf8').replace(/\n$/, '').split('\n');
}

/** Writes `<dir>/<name>` in a fresh temp directory and returns the directory. */
export function writeTempSource(name: string, content: string | Buffer): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'idem-src-'));
  writeFileSync(path.join(dir, name), content);
  return dir;
}

/** A copy of a daily file with `edit` applied to each line (1-based line numbers; 1 is the header). */
export function editedFixture(date: string, edit: (line: string, lineNumber: number) => string): string {
  return writeTempSource(`${date}.csv`, `${fixtureLines(date).map((line, i) => edit(line, i + 1)).join('\n')}\n`);
}
