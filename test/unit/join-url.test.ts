import { describe, expect, it } from 'vitest';
import { joinUrl, unjoinableBaseUrlReason } from '../../src/http/join-url.ts';

describe('joinUrl', () => {
  it.each([
    ['https://api.example.com', '/invoices', 'https://api.example.com/invoices'],
    ['https://api.example.com/', '/invoices', 'https://api.example.com/invoices'],
    ['https://api.example.com', 'invoices', 'https://api.example.com/invoices'],
    ['https://api.example.com/v2', '/invoices/42', 'https://api.example.com/v2/invoices/42'],
    ['https://api.example.com/v2/', '/invoices/42', 'https://api.example.com/v2/invoices/42'],
    ['https://api.example.com/v2//', '//invoices', 'https://api.example.com/v2/invoices'],
    ['https://api.example.com/v2/?api_key=k', '/invoices', 'https://api.example.com/v2/invoices?api_key=k'],
    ['https://api.example.com/v2?api_key=k&region=eu', '/invoices?page=2', 'https://api.example.com/v2/invoices?api_key=k&region=eu&page=2'],
    ['https://api.example.com/v2', '/invoices?page=2', 'https://api.example.com/v2/invoices?page=2'],
    ['https://api.example.com/a%20b/', '/c%2Fd', 'https://api.example.com/a%20b/c%2Fd'],
    ['https://api.example.com/tenant', '/invoices/INV 1', 'https://api.example.com/tenant/invoices/INV%201'],
    ['https://api.example.com/v2/?sig=a%2Bb%3D', '/x', 'https://api.example.com/v2/x?sig=a%2Bb%3D'],
    ['http://etl:pw@127.0.0.1:8080/api', '/invoices', 'http://etl:pw@127.0.0.1:8080/api/invoices'],
    ['https://api.example.com/v2/?k=1', '', 'https://api.example.com/v2/?k=1'],
  ])('%s + %s = %s', (base, path, expected) => {
    expect(joinUrl(base, path)).toBe(expected);
  });
});

describe('unjoinableBaseUrlReason', () => {
  it('accepts bases with a path, a trailing slash or a query', () => {
    expect(unjoinableBaseUrlReason('https://api.example.com')).toBeUndefined();
    expect(unjoinableBaseUrlReason('https://api.example.com/v2/?api_key=k')).toBeUndefined();
  });

  it('refuses a base with a fragment, even an empty one', () => {
    expect(unjoinableBaseUrlReason('https://api.example.com/v2#section')).toMatch(/fragment \("#section"\)/);
    expect(unjoinableBaseUrlReason('https://api.example.com/v2#')).toMatch(/fragment/);
  });
});
