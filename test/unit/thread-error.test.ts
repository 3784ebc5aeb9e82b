import { Big } from 'big.js';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { PipelineError } from '../../src/errors/pipeline-error.ts';
import { SourceChangedError } from '../../src/errors/source-changed-error.ts';
import { SourceError } from '../../src/errors/source-error.ts';
import { StoppedError } from '../../src/errors/stopped-error.ts';
import { UnreadableFileError } from '../../src/errors/unreadable-file-error.ts';
import { UsageError } from '../../src/errors/usage-error.ts';
import { cloneProblem } from '../../src/runner/clone-problem.ts';
import { rebuildThreadError, serializeThreadError } from '../../src/runner/thread-error.ts';

/** `error` as the run's thread gets it from a reading thread: serialized, structured-cloned (what postMessage does), rebuilt. */
const across = (error: unknown): Error => rebuildThreadError(structuredClone(serializeThreadError(error)));

describe('an error that crosses from a reading thread', () => {
  it('arrives as the same class, with the same message, fields and exit code', () => {
    const errors = [
      new SourceError('/data/a.csv', 12, 'Quantity: expected an integer (got "x")'),
      new SourceError('/data/a.csv', undefined, 'source file not found'),
      new SourceChangedError('/data/a.csv', 'its size went from 10 to 12 bytes'),
      new UnreadableFileError('/data/a.csv', 'EACCES'),
      new UsageError('pipelines/x.ts: boom'),
      new PipelineError('pipeline "x": toRecords gave a values key "y"'),
      new StoppedError('SIGTERM'),
    ];
    for (const error of errors) {
      const arrived = across(error);
      expect(arrived).toBeInstanceOf(error.constructor);
      expect(arrived.message).toBe(error.message);
      expect(arrived.name).toBe(error.name);
      expect({ ...arrived }).toEqual({ ...error });
      expect((arrived as UsageError).exitCode).toBe((error as UsageError).exitCode);
      expect(arrived.stack).toBe(error.stack);
    }
    expect(across(new SourceError('/data/a.csv', 12, 'x'))).toMatchObject({ source: '/data/a.csv', line: 12, code: 'SOURCE', outcome: 'failed', exitCode: 1 });
    expect(across(new UnreadableFileError('/data/a.csv', 'EACCES'))).toMatchObject({ file: '/data/a.csv', outcome: 'usage', exitCode: 2 });
  });

  it('keeps its cause, and a JavaScript error its class; an unknown class arrives as an Error with its name', () => {
    const arrived = across(new UsageError('pipelines/x.ts: boom', { cause: new TypeError('x is not a function') }));
    expect(arrived.cause).toBeInstanceOf(TypeError);
    expect((arrived.cause as Error).message).toBe('x is not a function');
    class CustomError extends Error {
      override name = 'CustomError';
    }
    const custom = across(new CustomError('odd'));
    expect(custom).toBeInstanceOf(Error);
    expect([custom.name, custom.message]).toEqual(['CustomError', 'odd']);
    expect(across('a string thrown')).toMatchObject({ message: 'a string thrown' });
  });
});

describe('cloneProblem', () => {
  it('passes what a structured clone keeps as it is', () => {
    const kept = { a: 'x', b: 1, c: true, d: null, e: undefined, f: 2n, g: new Date(0), h: [1, { i: 'y' }], m: new Map([['k', new Set([1])]]), r: /x/g, u: new Uint8Array([1]) };
    expect(cloneProblem(kept)).toBeUndefined();
    expect(structuredClone(kept)).toEqual(kept);
  });

  it('names a class instance, a function or a symbol, and where it is', () => {
    expect(cloneProblem({ price: new Big('1.5') })).toBe('a Big at "price"');
    expect(cloneProblem({ at: DateTime.fromISO('2026-01-01') })).toBe('a DateTime at "at"');
    class Money {
      readonly cents = 5;
    }
    expect(cloneProblem({ lines: [{ ok: 1 }, { total: new Money() }] })).toBe('a Money at "lines[1].total"');
    expect(cloneProblem({ seen: new Map([['k', new Big(1)]]) })).toBe('a Big at "seen<0>[1]"');
    expect(cloneProblem({ f: () => 1 })).toBe('a function at "f"');
    expect(cloneProblem(Symbol('s'))).toBe('a symbol');
  });
});
