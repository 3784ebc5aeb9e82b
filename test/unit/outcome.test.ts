import { describe, expect, it } from 'vitest';
import { IdemError } from '../../src/errors/idem-error.ts';
import { DiskFullError } from '../../src/errors/disk-full-error.ts';
import { LockHeldError } from '../../src/errors/lock-held-error.ts';
import { SourceChangedError } from '../../src/errors/source-changed-error.ts';
import { UnreadableFileError } from '../../src/errors/unreadable-file-error.ts';
import { NotMigratedError } from '../../src/errors/not-migrated-error.ts';
import { UsageError } from '../../src/errors/usage-error.ts';
import { EXIT_CODES, exitCodeOf, type Outcome } from '../../src/outcome/outcome.ts';

// The scheduler's contract (docs/operating.md, "Exit codes"), written out once more on purpose:
// a change to the table in src/outcome/outcome.ts must change this one too.
const EXPECTED: Record<Outcome, number> = {
  completed: 0,
  noop: 0,
  skipped: 0,
  planned: 0,
  idle: 0,
  failed: 1,
  usage: 2,
  'needs-review': 3,
  duplicates: 3,
  'lock-held': 75,
  unavailable: 75,
  'source-changed': 75,
  'disk-full': 3,
  stopped: 75,
};

describe('exitCodeOf', () => {
  it.each(Object.entries(EXPECTED))('maps %s to %i', (outcome, code) => {
    expect(exitCodeOf(outcome as Outcome)).toBe(code);
  });

  it('uses exactly the exit codes idem documents: 0, 1, 2, 3 and 75 (EX_TEMPFAIL)', () => {
    expect(EXIT_CODES).toEqual({ ok: 0, failed: 1, usage: 2, needsOperator: 3, retryLater: 75 });
    expect(new Set(Object.values(EXPECTED))).toEqual(new Set(Object.values(EXIT_CODES)));
  });
});

describe('IdemError outcomes', () => {
  it.each([
    ['an IdemError by default', new IdemError('x', { code: 'X' }), 'failed', 1],
    ['UsageError', new UsageError('bad flag'), 'usage', 2],
    ['NotMigratedError', new NotMigratedError(['20261130000000_create_idem_tables.ts']), 'usage', 2],
    ['LockHeldError', new LockHeldError('idem:orders', 'pid 1 on host'), 'lock-held', 75],
    ['SourceChangedError', new SourceChangedError('/in/2010-12-01.csv', 'its size went from 1 to 2 bytes'), 'source-changed', 75],
    ['UnreadableFileError', new UnreadableFileError('/in/2010-12-01.csv', 'EACCES'), 'usage', 2],
    ['DiskFullError', new DiskFullError('the database or disk is full (SQLite file /x.sqlite3: database or disk is full)', 'free space'), 'disk-full', 3],
  ] as const)('%s ends a command as %s, exit %i', (_name, error, outcome, code) => {
    expect(error.outcome).toBe(outcome);
    expect(error.exitCode).toBe(code);
  });

  it('UsageError keeps the error behind it as its cause', () => {
    const cause = new TypeError('pipeline "x": timeZone "Mars/Olympus" is not an IANA time zone');
    const error = new UsageError('pipelines/x.ts: bad', { cause });
    expect(error.cause).toBe(cause);
    expect(new UsageError('no cause')).not.toHaveProperty('cause');
  });
});
