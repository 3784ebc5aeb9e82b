import { describe, expect, it } from 'vitest';
import { escapeControlCharacters } from '../../src/text/escape-control-characters.ts';
import { redactSecrets } from '../../src/text/redact-secrets.ts';
import { formatTable } from '../../src/text/format-table.ts';

describe('redactSecrets', () => {
  it('hides the user info of every URL in a text, and secret query parameters', () => {
    expect(redactSecrets('POST http://user:pw@127.0.0.1:9/invoices: the response is not valid JSON')).toBe('POST http://user:***@127.0.0.1:9/invoices: the response is not valid JSON');
    expect(redactSecrets('postgres://app:p@ss/w0rd@db:5432/etl')).toBe('postgres://app:***@db:5432/etl');
    expect(redactSecrets('https://ghp_T0KEN@github.com/x')).toBe('https://***@github.com/x');
    expect(redactSecrets('{"url":"https://hc.example/ping/abc?token=T0KEN&x=1","other":"http://a:b@c"}')).toBe('{"url":"https://hc.example/ping/abc?token=***&x=1","other":"http://a:***@c"}');
    expect(redactSecrets('https://api.example/v1?API_KEY=k1&page=2&sig=zz')).toBe('https://api.example/v1?API_KEY=***&page=2&sig=***');
    expect(redactSecrets('sqlite:var/idem.sqlite3 and http://host/path')).toBe('sqlite:var/idem.sqlite3 and http://host/path');
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
