import { describe, expect, it } from 'vitest';
import { escapeControlCharacters } from '../../src/text/escape-control-characters.ts';
import { redactSecrets } from '../../src/text/redact-secrets.ts';
import { formatTable } from '../../src/text/format-table.ts';

describe('redactSecrets', () => {
  it('hides the user info of every URL in a text, and secret query parameters', () => {
    expect(redactSecrets('POST http://user:pw@127.0.0.1:9/invoices: the response is not valid JSON')).toBe('POST http://user:***@127.0.0.1:9/invoices: the response is not valid JSON');
    expect(redactSecrets('postgres://app:p@ss/w0rd@db:5432/etl')).toBe('postgres://app:***@db:5432/etl');
    expect(redactSecrets('https://ghp_T0KEN@github.com/x')).toBe('https://***@github.com/x');
    expect(redactSecrets('{"url":"https://hc.example/ping/abc?token=T0KEN&x=1","other":"http://a:b@c"}')).toBe('{"url":"https://hc.example/ping/abc?token=***&x=***","other":"http://a:***@c"}');
    expect(redactSecrets('https://api.example/v1?API_KEY=k1&page=2&sig=zz')).toBe('https://api.example/v1?API_KEY=***&page=2&sig=***');
    expect(redactSecrets('sqlite:var/idem.sqlite3 and http://host/path')).toBe('sqlite:var/idem.sqlite3 and http://host/path');
  });

  // Issue 28 §8: every query value is hidden but for names known to be harmless.
  it.each([
    'private_token', 'X-Amz-Signature', 'X-Amz-Credential', 'X-Amz-Security-Token', 'subscription-key', 'X-Api-Key',
    'access_key', 'auth_token', 'refresh_token', 'id_token', 'jwt', 'passwd', 'sessionid', 'hapikey',
  ])('hides the value of %s wherever it stands in the query', (name) => {
    const canary = 'Canary9Zq';
    expect(redactSecrets(`GET https://api.example/v2/items?${name}=${canary} answered 500`)).toBe(`GET https://api.example/v2/items?${name}=*** answered 500`);
    expect(redactSecrets(`"https://api.example/v2/items?page=2&${name}=${canary}&limit=50"`)).toBe(`"https://api.example/v2/items?page=2&${name}=***&limit=50"`);
  });

  it('shows the paging, ordering and filtering parameters, and an empty value', () => {
    const url = 'https://api.example/products?updated_since=2026-12-01T00%3A00%3A00Z&page=3&per_page=100&sort=id&cursor=abc&empty=';
    expect(redactSecrets(url)).toBe(url);
    expect(redactSecrets('https://api.example/x?Page=2&Secret%5FThing=s')).toBe('https://api.example/x?Page=2&Secret%5FThing=***');
    expect(redactSecrets('POST https://api.example/x?k=v: the response is not valid JSON')).toBe('POST https://api.example/x?k=***: the response is not valid JSON');
    expect(redactSecrets('GET https://api.example/x?k=a:b:')).toBe('GET https://api.example/x?k=***:');
  });
});

describe('escapeControlCharacters', () => {
  it('shows C0, DEL and C1 controls as \\xHH, and leaves other text alone', () => {
    expect(escapeControlCharacters('\u001b[2Jcleared\r\n\tx\u007f\u009bé€')).toBe('\\x1b[2Jcleared\\x0d\\x0a\\x09x\\x7f\\x9bé€');
  });

  it('formatTable escapes and redacts every cell', () => {
    expect(formatTable(['a', 'b'], [['\u001b[2J', 'http://u:p@h/x']])).toBe('a        b\n\\x1b[2J  http://u:***@h/x\n');
  });
});
