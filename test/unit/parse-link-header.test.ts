import { describe, expect, it } from 'vitest';
import { parseLinkHeader } from '../../src/http/parse-link-header.ts';

describe('parseLinkHeader (RFC 8288 §3)', () => {
  it('reads GitHub-style links in order', () => {
    const header =
      '<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last"';
    expect(parseLinkHeader(header)).toEqual([
      { target: 'https://api.github.com/repositories/1/issues?page=2', rel: ['next'], params: { rel: 'next' } },
      { target: 'https://api.github.com/repositories/1/issues?page=5', rel: ['last'], params: { rel: 'last' } },
    ]);
  });

  it('keeps commas and semicolons inside the target and inside quoted strings, with escapes', () => {
    expect(parseLinkHeader('</items?a=1,2;b>; title="a, \\"b\\"; c"; rel=next')).toEqual([
      { target: '/items?a=1,2;b', rel: ['next'], params: { title: 'a, "b"; c', rel: 'next' } },
    ]);
  });

  it('lower-cases parameter names and relation types, splits a rel list, and keeps the first rel only', () => {
    expect(parseLinkHeader('<a>; REL="Next Last"; rel=prev')).toEqual([{ target: 'a', rel: ['next', 'last'], params: { rel: 'Next Last' } }]);
  });

  it('joins repeated header fields into one list', () => {
    expect(parseLinkHeader(['<a>; rel=prev', '<b>; rel=next']).map((l) => [l.target, l.rel])).toEqual([['a', ['prev']], ['b', ['next']]]);
  });

  it('skips malformed link-values but keeps the good ones', () => {
    expect(parseLinkHeader('garbage; rel=next, <ok>; rel="next"').map((l) => l.target)).toEqual(['ok']);
    expect(parseLinkHeader('<u1>; rel="next" junk, <u2>; rel=last').map((l) => l.target)).toEqual(['u2']);
    expect(parseLinkHeader('<unclosed; rel=next')).toEqual([]);
  });

  it('gives [] for a missing or empty header', () => {
    expect(parseLinkHeader(undefined)).toEqual([]);
    expect(parseLinkHeader('')).toEqual([]);
    expect(parseLinkHeader([])).toEqual([]);
  });
});
