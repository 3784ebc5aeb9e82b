import { describe, expect, it } from 'vitest';
import type { DestinationDefinition } from '../../src/destination/destination-definition.ts';
import type { StrategySender } from '../../src/destination/post-strategy-module.ts';
import { postStrategyOf } from '../../src/destination/post-strategy-registry.ts';
import { POST_STRATEGIES, type PostStrategy } from '../../src/destination/post-strategy.ts';
import { classifyHttpFailure } from '../../src/http/classify-http-failure.ts';
import { HttpStatusError } from '../../src/http/http-status-error.ts';
import { requestMayHaveApplied } from '../../src/destination/request-may-have-applied.ts';

// What each strategy module decides, read without a network: the fault suites (test/faults/)
// prove the same rules end to end against real servers.
const definition = { name: 'api', strategy: 'idempotency-key', request: () => ({ method: 'POST', path: '/', body: {} }), remoteReference: () => 'r' } as DestinationDefinition;
const answer = (status: number) => new HttpStatusError({ status, body: '{}', url: 'http://api/', method: 'POST' });
const headersTimeout = Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** One attempt whose create failed with `error`: what the strategy does next. */
async function afterFailedCreate(name: PostStrategy, error: unknown) {
  const calls: string[] = [];
  const sender: StrategySender = {
    lookUp: async () => (calls.push('look-up'), undefined),
    markSending: async () => void calls.push('mark'),
    sleep: async () => undefined,
  };
  const item = postStrategyOf(name).startItem({ idempotencyKey: 'k1', definition, settleDelayMs: 0 });
  expect(await item.beforeSend(sender)).toBeUndefined();
  item.sendFailed({ error, mayHaveApplied: requestMayHaveApplied(definition, error) });
  const failure = classifyHttpFailure(error);
  return { calls, headers: item.headers, retries: item.retries(failure), ending: item.ending(failure) };
}

describe('post strategy modules', () => {
  it('names a module for every strategy, under its own name', () => {
    expect(POST_STRATEGIES.map((name) => postStrategyOf(name).name)).toEqual(POST_STRATEGIES);
    expect(() => postStrategyOf('idempotency_key' as PostStrategy)).toThrow('unknown post strategy "idempotency_key"');
  });

  it('idempotency-key: sends the key, retries an unknown outcome, and a key still in flight stays transient', async () => {
    const timeout = await afterFailedCreate('idempotency-key', headersTimeout);
    expect(timeout).toMatchObject({ calls: [], headers: { 'idempotency-key': 'k1' }, retries: true, ending: { status: 'failed', failureKind: 'transient' } });
    expect(await afterFailedCreate('idempotency-key', answer(409))).toMatchObject({ retries: true, ending: { status: 'failed', failureKind: 'transient' } });
    expect(await afterFailedCreate('idempotency-key', answer(400))).toMatchObject({ retries: false, ending: { status: 'failed', failureKind: 'terminal' } });
  });

  it('check-before-create: looks up first, retries a 5xx, and marks a create that may still land', async () => {
    const gateway = await afterFailedCreate('check-before-create', answer(504));
    expect(gateway).toMatchObject({ calls: ['look-up'], headers: {}, retries: true, ending: { status: 'failed', failureKind: 'transient', requestMayLand: true } });
    expect((await afterFailedCreate('check-before-create', refused)).ending).toEqual({ status: 'failed', failureKind: 'transient' });
  });

  it('mark-before-send: marks first; an unknown outcome goes to review, a request never sent is retried', async () => {
    expect(await afterFailedCreate('mark-before-send', headersTimeout)).toMatchObject({ calls: ['mark'], retries: false, ending: { status: 'review' } });
    expect(await afterFailedCreate('mark-before-send', answer(502))).toMatchObject({ retries: false, ending: { status: 'review' } });
    expect(await afterFailedCreate('mark-before-send', refused)).toMatchObject({ retries: true, ending: { status: 'failed', failureKind: 'transient' } });
  });

  it('asks capabilities, not names: only check-before-create needs a look-up and waits out late requests', () => {
    const capabilities = POST_STRATEGIES.map((name) => {
      const { needsLookup, sendsIdempotencyKey, marksSending, waitsOutLateRequests } = postStrategyOf(name);
      return { name, needsLookup, sendsIdempotencyKey, marksSending, waitsOutLateRequests };
    });
    expect(capabilities).toEqual([
      { name: 'idempotency-key', needsLookup: false, sendsIdempotencyKey: true, marksSending: false, waitsOutLateRequests: false },
      { name: 'check-before-create', needsLookup: true, sendsIdempotencyKey: false, marksSending: false, waitsOutLateRequests: true },
      { name: 'mark-before-send', needsLookup: false, sendsIdempotencyKey: false, marksSending: true, waitsOutLateRequests: false },
    ]);
  });
});
