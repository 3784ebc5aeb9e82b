import * as errors from '../errors/index.ts';
import { StoppedError } from '../errors/stopped-error.ts';

/** An error as it crosses a thread boundary: its class's name, message, stack, own fields and cause. */
export interface ThreadError {
  readonly name: string;
  readonly className: string;
  readonly message: string;
  readonly stack: string | undefined;
  /** Own enumerable fields that survive a structured clone (`source`, `line`, `code`, `outcome`). */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly cause?: ThreadError | { readonly value: unknown } | undefined;
}

/** A class of errors, as far as rebuilding one needs it. */
type ErrorClass = { readonly name: string; readonly prototype: Error };

/** idem's own error classes and JavaScript's, by name: what a {@link ThreadError} is rebuilt as. */
const CLASSES: ReadonlyMap<string, ErrorClass> = new Map(
  [...(Object.values(errors) as unknown[]), StoppedError, Error, TypeError, RangeError, SyntaxError, ReferenceError]
    .filter((value): value is ErrorClass => typeof value === 'function' && (value === Error || value.prototype instanceof Error))
    .map((value) => [value.name, value]),
);

/** Causes followed at most this deep. */
const CAUSE_DEPTH = 4;

function cloneable(value: unknown): boolean {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * `error` as plain data for `postMessage`. A structured clone of an `Error` keeps only its
 * message and stack (a `SourceError` would arrive without its `source` and `line`, as a plain
 * `Error`): its class is sent by name and its own fields one by one.
 */
export function serializeThreadError(error: unknown, depth = 0): ThreadError {
  if (!(error instanceof Error)) return { name: 'Error', className: 'Error', message: String(error), stack: undefined, fields: {} };
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(error)) {
    const value = (error as unknown as Record<string, unknown>)[key];
    if (key !== 'cause' && cloneable(value)) fields[key] = value;
  }
  const { cause } = error as { cause?: unknown };
  return {
    name: error.name,
    className: error.constructor.name,
    message: error.message,
    stack: error.stack,
    fields,
    ...(cause === undefined || depth >= CAUSE_DEPTH
      ? {}
      : { cause: cause instanceof Error ? serializeThreadError(cause, depth + 1) : { value: cloneable(cause) ? cause : String(cause) } }),
  };
}

/**
 * The error a {@link ThreadError} was made of, on this thread: an instance of the class of the
 * same name (idem's errors, JavaScript's; else `Error`) with the same message, stack, fields and
 * cause, so `instanceof`, `exitCode` and every field read as the thrown error's. Built without
 * its constructor, which would word the message again (and `UnreadableFileError`'s reads the uid).
 */
export function rebuildThreadError(sent: ThreadError): Error {
  const Class: ErrorClass = CLASSES.get(sent.className) ?? Error;
  const error = Object.create(Class.prototype) as Error;
  const define = (key: string, value: unknown, enumerable: boolean): void => {
    Object.defineProperty(error, key, { value, writable: true, configurable: true, enumerable });
  };
  define('message', sent.message, false);
  if (sent.stack !== undefined) define('stack', sent.stack, false);
  for (const [key, value] of Object.entries(sent.fields)) define(key, value, true);
  if (!Object.hasOwn(sent.fields, 'name') && sent.name !== Class.name) define('name', sent.name, false);
  if (sent.cause !== undefined) define('cause', 'className' in sent.cause ? rebuildThreadError(sent.cause) : sent.cause.value, false);
  return error;
}
