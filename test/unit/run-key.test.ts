import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/usage-error.ts';
import { fileRunKey } from '../../src/runs/run-key.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'idem-run-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHUNK = 1024 * 1024; // the read size in run-key.ts

describe('fileRunKey', () => {
  // Sizes around the read chunk: empty, one byte, exactly one and two chunks, one byte past.
  it.each([0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 2 * CHUNK + 7, 3 * CHUNK + 12_345])('is the SHA-256 of all %i bytes', async (size) => {
    const bytes = randomBytes(size);
    const file = path.join(dir, `f${size}.csv`);
    writeFileSync(file, bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(await fileRunKey(file)).toEqual({ kind: 'file', value: `file:f${size}.csv@sha256:${sha256.slice(0, 16)}`, file, sha256 });
  });

  it('keeps the key of the same bytes and changes it when any byte changes', async () => {
    const bytes = randomBytes(2 * CHUNK + 100);
    const file = path.join(dir, 'same.csv');
    writeFileSync(file, bytes);
    const first = await fileRunKey(file);
    expect((await fileRunKey(file)).value).toBe(first.value);
    for (const at of [0, CHUNK - 1, CHUNK, bytes.length - 1]) {
      const changed = Buffer.from(bytes);
      changed[at] = changed[at]! ^ 1;
      writeFileSync(file, changed);
      expect((await fileRunKey(file)).value, `byte ${at} changed`).not.toBe(first.value);
    }
    writeFileSync(file, bytes);
    expect((await fileRunKey(file)).value).toBe(first.value);
  });

  it('refuses a missing file', async () => {
    await expect(fileRunKey(path.join(dir, 'missing.csv'))).rejects.toThrow(UsageError);
  });
});
