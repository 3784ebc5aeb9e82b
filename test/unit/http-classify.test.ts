import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { classifyHttpFailure } from '../../src/http/classify-http-failure.ts';
import { HttpStatusError } from '../../src/http/http-status-error.ts';

const statusError = (status: number, retryAfterMs?: number) =>
  new HttpStatusError({ status, body: 'details', url: 'http://api.test/orders', method: 'POST', retryAfterMs });
/** A Node system error as `net` / `dns` raise them. */
const systemError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code });

describe('classifyHttpFailure: status errors', () => {
  it.each([
    [408, 'HTTP 408 Request Timeout'],
    [429, 'HTTP 429 Too Many Requests'],
    [500, 'HTTP 500 Internal Server Error'],
    [503, 'HTTP 503 Service Unavailable'],
    [599, 'HTTP 599'],
  ])('%i is transient and was rejected', (status, reason) => {
    expect(classifyHttpFailure(statusError(status))).toEqual({ kind: 'transient', outcome: 'rejected', reason, status });
  });

  it.each([
    [400, 'HTTP 400 Bad Request'],
    [401, 'HTTP 401 Unauthorized'],
    [404, 'HTTP 404 Not Found'],
    [409, 'HTTP 409 Conflict'],
    [422, 'HTTP 422 Unprocessable Entity'],
  ])('%i is terminal and was rejected', (status, reason) => {
    expect(classifyHttpFailure(statusError(status))).toEqual({ kind: 'terminal', outcome: 'rejected', reason, status });
  });

  it('carries the Retry-After', () => {
    expect(classifyHttpFailure(statusError(429, 2000)).retryAfterMs).toBe(2000);
  });
});

describe('classifyHttpFailure: network errors', () => {
  it.each([
    ['connect timeout', new errors.ConnectTimeoutError(), 'connect timeout (request not sent)'],
    ['ECONNREFUSED', systemError('ECONNREFUSED'), 'connection refused (request not sent)'],
    ['ENOTFOUND', systemError('ENOTFOUND'), 'host name not found (request not sent)'],
    ['EAI_AGAIN', systemError('EAI_AGAIN'), 'temporary DNS failure (request not sent)'],
    ['a destroyed pool', new errors.ClientDestroyedError(), 'connection pool destroyed before the request was sent (request not sent)'],
  ])('%s: transient, not sent', (_, error, reason) => {
    expect(classifyHttpFailure(error)).toEqual({ kind: 'transient', outcome: 'not-sent', reason });
  });

  it.each([
    ['headers timeout', new errors.HeadersTimeoutError(), 'headers timeout after the request was sent (outcome unknown)'],
    ['body timeout', new errors.BodyTimeoutError(), 'body timeout while reading the response (outcome unknown)'],
    ['other side closed', new errors.SocketError('other side closed'), 'connection closed by the other side (outcome unknown)'],
    ['ECONNRESET', systemError('ECONNRESET'), 'connection reset (outcome unknown)'],
    ['EPIPE', systemError('EPIPE'), 'connection broke while sending (outcome unknown)'],
    ['an aborted request', new errors.RequestAbortedError(), 'request aborted (outcome unknown)'],
  ])('%s: transient, outcome unknown', (_, error, reason) => {
    expect(classifyHttpFailure(error)).toEqual({ kind: 'transient', outcome: 'unknown', reason });
  });

  it('looks through a wrapping error at its cause', () => {
    const wrapped = new TypeError('fetch failed', { cause: systemError('ECONNREFUSED') });
    expect(classifyHttpFailure(wrapped)).toMatchObject({ kind: 'transient', outcome: 'not-sent' });
  });
});

describe('classifyHttpFailure: anything else is terminal', () => {
  it.each([
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'id')"), "Cannot read properties of undefined (reading 'id')"],
    ['an invalid argument', new errors.InvalidArgumentError('invalid method'), 'invalid method'],
    ['a closed pool', new errors.ClientClosedError(), 'The client is closed'],
    ["the caller's abort", new DOMException('This operation was aborted', 'AbortError'), 'This operation was aborted'],
    ['a thrown string', 'boom', 'boom'],
  ])('%s', (_, error, reason) => {
    expect(classifyHttpFailure(error)).toEqual({ kind: 'terminal', outcome: 'unknown', reason });
  });
});
