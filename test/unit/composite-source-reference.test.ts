import { describe, expect, it } from 'vitest';
import { compositeSourceReference } from '../../src/pipeline/composite-source-reference.ts';

describe('compositeSourceReference', () => {
  it('joins the parts with /, each encoded so that no two keys meet', () => {
    expect(compositeSourceReference(['536365', '1'])).toBe('536365/1');
    expect(compositeSourceReference(['a/b', 'c'])).toBe('a%2Fb/c');
    expect(compositeSourceReference(['a', 'b/c'])).toBe('a/b%2Fc');
    expect(compositeSourceReference(['50%', 'x y', 'é'])).toBe('50%25/x%20y/%C3%A9');
    // Every part decodes back: the encoding is reversible.
    expect(compositeSourceReference(['a/b', '%2F']).split('/').map(decodeURIComponent)).toEqual(['a/b', '%2F']);
  });

  it('refuses a single part: a single key is its own text', () => {
    expect(() => compositeSourceReference(['a'])).toThrow('a composite key has two or more parts (got 1)');
  });
});
