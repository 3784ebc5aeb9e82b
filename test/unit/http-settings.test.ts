import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/load-config.ts';
import type { DestinationDefinition } from '../../src/destination/destination-definition.ts';
import { DEFAULT_HTTP_SETTINGS, httpSettingsProblem, resolveHttpSettings, type HttpSettingsInput } from '../../src/http/http-settings.ts';
import { column } from '../../src/column/column-type.ts';
import { definePipeline } from '../../src/pipeline/define-pipeline.ts';
import { httpJsonSource } from '../../src/source/http-json/http-json-source.ts';

const destination = (http: HttpSettingsInput): DestinationDefinition => ({
  name: 'accounting',
  strategy: 'idempotency-key',
  request: () => ({ method: 'POST', path: '/invoices', body: {} }),
  remoteReference: () => 'r',
  http,
});

const source = (http?: HttpSettingsInput) =>
  httpJsonSource({
    path: '/products',
    paging: { style: 'cursor', cursorField: 'next', cursorParam: 'cursor' },
    items: (body) => body as unknown[],
    row: z.object({ id: z.string() }),
    ...(http ? { http } : {}),
  });

const pipelineWith = (http: HttpSettingsInput) =>
  definePipeline({
    name: 'http-settings',
    sourceSystem: 'test',
    timeZone: 'UTC',
    source: source(),
    async *toRecords() {},
    tables: { staging: 'stg_x', target: 'x' },
    columns: { amount: column.integer() },
    destinations: [destination(http)],
  });

/** What each place that takes HTTP settings says about `http`, or `undefined` where it accepts them. */
function everyPath(http: HttpSettingsInput): Record<string, string | undefined> {
  const message = (work: () => unknown): string | undefined => {
    try {
      work();
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
  const env = (key: string) => JSON.stringify({ [key]: { url: 'https://api.example.com', http } });
  return {
    pipelineDestination: message(() => pipelineWith(http)),
    pipelineSource: message(() => source(http)),
    IDEM_DESTINATIONS: message(() => loadConfig({ IDEM_DESTINATIONS: env('accounting') }, '/p')),
    IDEM_SOURCES: message(() => loadConfig({ IDEM_SOURCES: env('products') }, '/p')),
    resolveHttpSettings: message(() => resolveHttpSettings(http)),
  };
}

describe('HTTP settings: one schema for pipeline files, IDEM_DESTINATIONS and IDEM_SOURCES', () => {
  it.each<[string, HttpSettingsInput, string]>([
    ['concurrency above 256', { concurrency: 1000 }, 'http.concurrency: must be an integer from 1 to 256 (got 1000)'],
    ['concurrency 0', { concurrency: 0 }, 'http.concurrency: must be an integer from 1 to 256 (got 0)'],
    ['a fractional concurrency', { concurrency: 1.5 }, 'http.concurrency: must be an integer from 1 to 256 (got 1.5)'],
    ['a zero timeout', { connectTimeoutMs: 0 }, 'http.connectTimeoutMs: must be an integer ≥ 1 (got 0)'],
    ['a negative timeout', { headersTimeoutMs: -1 }, 'http.headersTimeoutMs: must be an integer ≥ 1 (got -1)'],
    ['maxAttempts 0', { retry: { maxAttempts: 0 } }, 'http.retry.maxAttempts: must be an integer ≥ 1 (got 0)'],
    ['a factor below 1', { retry: { factor: 0.5 } }, 'http.retry.factor: must be a number ≥ 1 (got 0.5)'],
    ['a negative minDelayMs', { retry: { minDelayMs: -1 } }, 'http.retry.minDelayMs: must be an integer ≥ 0 (got -1)'],
    ['a string where a number belongs', { bodyTimeoutMs: '5000' as unknown as number }, 'http.bodyTimeoutMs: must be an integer ≥ 1 (got string)'],
    ['an unknown field', { timeoutMs: 5 } as HttpSettingsInput, 'http: Unrecognized key: "timeoutMs"'],
  ])('rejects %s everywhere with the same field, rule and value', (_, http, problem) => {
    expect(httpSettingsProblem(http)).toBe(problem);
    expect(everyPath(http)).toEqual({
      pipelineDestination: `pipeline destinations[0].${problem}`,
      pipelineSource: `httpJsonSource ${problem}`,
      IDEM_DESTINATIONS: `IDEM_DESTINATIONS accounting.${problem}`,
      IDEM_SOURCES: `IDEM_SOURCES products.${problem}`,
      resolveHttpSettings: problem,
    });
  });

  it('accepts the bounds everywhere', () => {
    const http = { concurrency: 256, connectTimeoutMs: 1, retry: { maxAttempts: 1, minDelayMs: 0, maxRetryAfterMs: 0, factor: 1.5 } };
    expect(httpSettingsProblem(http)).toBeUndefined();
    expect(everyPath(http)).toEqual({ pipelineDestination: undefined, pipelineSource: undefined, IDEM_DESTINATIONS: undefined, IDEM_SOURCES: undefined, resolveHttpSettings: undefined });
    expect(loadConfig({ IDEM_DESTINATIONS: JSON.stringify({ a: { url: 'https://x.example', http } }) }, '/p').destinations.a!.http).toEqual(http);
  });

  it('does not echo a deployment value that is not a number (it may be a credential pasted in the wrong place)', () => {
    const env = JSON.stringify({ accounting: { url: 'https://api.example.com', http: { concurrency: 'Bearer s3cr3t' } } });
    expect(() => loadConfig({ IDEM_DESTINATIONS: env }, '/p')).toThrow('IDEM_DESTINATIONS accounting.http.concurrency: must be an integer from 1 to 256 (got string)');
  });
});

describe('resolveHttpSettings', () => {
  it('fills what is missing or undefined from the defaults', () => {
    const settings = resolveHttpSettings({ concurrency: 2, headersTimeoutMs: undefined, retry: { maxAttempts: 3 } });
    expect(settings).toEqual({ ...DEFAULT_HTTP_SETTINGS, concurrency: 2, retry: { ...DEFAULT_HTTP_SETTINGS.retry, maxAttempts: 3 } });
    expect(Object.isFrozen(settings)).toBe(true);
    expect(Object.isFrozen(settings.retry)).toBe(true);
  });

  it('lays later layers over earlier ones field by field, skipping undefined fields and layers', () => {
    const pipeline: HttpSettingsInput = { concurrency: 16, headersTimeoutMs: 10_000, retry: { maxAttempts: 3, factor: 3 } };
    const deployment: HttpSettingsInput = { concurrency: 4, bodyTimeoutMs: undefined, retry: { maxAttempts: 7 } };
    expect(resolveHttpSettings(pipeline, undefined, deployment)).toEqual({
      ...DEFAULT_HTTP_SETTINGS,
      concurrency: 4,
      headersTimeoutMs: 10_000,
      retry: { ...DEFAULT_HTTP_SETTINGS.retry, maxAttempts: 7, factor: 3 },
    });
    expect(resolveHttpSettings()).toEqual(DEFAULT_HTTP_SETTINGS);
  });

  it('throws a RangeError for a bad layer, even one a later layer would override', () => {
    expect(() => resolveHttpSettings({ retry: { maxAttempts: 0 } }, { retry: { maxAttempts: 2 } })).toThrow(RangeError);
  });
});
