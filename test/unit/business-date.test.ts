import { Settings } from 'luxon';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/usage-error.ts';
import { redactUrl } from '../../src/config/redact-url.ts';
import { parseBusinessDate, resolveBusinessDate } from '../../src/runs/business-date.ts';
import { csvLine } from '../../src/dialect/csv-line.ts';
import { Failpoints } from '../../src/runner/failpoints.ts';

describe('small pure pieces', () => {
  it('parseBusinessDate accepts real calendar dates only', () => {
    expect(parseBusinessDate('2012-02-29')).toBe('2012-02-29');
    for (const bad of ['2011-02-29', '2026-02-30', '20261001', '2026-1-01', ' 2026-01-01']) {
      expect(() => parseBusinessDate(bad)).toThrow(UsageError);
    }
  });

  it("checks a real YYYY-MM-DD date without asking Intl for the system's locale (ICU's locale set-up, about 20 ms of a no-op's CPU)", () => {
    Settings.resetCaches(); // luxon keeps the system locale once it has asked
    const original = Intl.DateTimeFormat;
    let made = 0;
    Intl.DateTimeFormat = new Proxy(original, { construct: (target, args: unknown[]) => ((made += 1), Reflect.construct(target, args)) });
    try {
      expect(parseBusinessDate('2012-02-29')).toBe('2012-02-29');
      expect(resolveBusinessDate('2010-12-01', 'Europe/London', new Date())).toBe('2010-12-01');
    } finally {
      Intl.DateTimeFormat = original;
    }
    expect(made).toBe(0);
  });

  it('redactUrl hides passwords', () => {
    expect(redactUrl('postgres://app:s3cr3t@db:5432/etl')).toBe('postgres://app:***@db:5432/etl');
    // A user info without a password may be a token: hidden too.
    expect(redactUrl('postgres://app@db/etl')).toBe('postgres://***@db/etl');
    expect(redactUrl('sqlite:var/idem.sqlite3')).toBe('sqlite:var/idem.sqlite3');
  });

  it('csvLine keeps NULL and the empty string apart and doubles quotes', () => {
    expect(csvLine([1, null, '', 'a,"b"', true])).toBe('1,,"","a,""b""",true\n');
  });

  it('Failpoints rejects unknown points and actions', () => {
    expect(() => new Failpoints('mid-stage=kill,after-stage=sleep:10')).not.toThrow();
    expect(() => new Failpoints('mid-nowhere=kill')).toThrow('IDEM_FAILPOINTS names an unknown point "mid-nowhere"');
    expect(() => new Failpoints('mid-stage=explode')).toThrow('must be kill, fail, sleep:<ms> or wait:<file> (got "explode")');
  });
});
