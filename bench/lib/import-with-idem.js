// One whole-file import by idem into a fresh, migrated scratch database: the shared first step of
// the year-import, no-op, rerun, post and peak-RSS figures.
import { idemEnv, migrate, mustSucceedIdem, runIdem } from './idem-cli.js';
import { singleSummary, stageSplit } from './run-summaries.js';

const PIPELINE = 'online-retail-invoices';

/**
 * Creates database `name` on `dialect`, migrates it, resets the sandbox, and times
 * `idem run online-retail-invoices --file FILE` as a child process (wall time and peak RSS).
 * @param {object} ctx the runner's context (scratch, sandbox, tmp, repo, concurrency)
 * @param {'postgres' | 'mariadb' | 'sqlite'} dialect
 * @param {{ file: string, lines: number, invoices: number }} input
 * @param {string} name database name suffix
 * @param {NodeJS.ProcessEnv} [extraEnv] more environment for the idem child (default none)
 * @returns {Promise<{ databaseUrl: string, env: object, seconds: number, rssKb: number, summary: object, output: string,
 *   split: ReturnType<typeof stageSplit>, workSeconds: number, sandboxCpuSeconds?: number }>}
 *   `workSeconds`: the wall time minus the post stage's own ms (the floors do not post).
 * @throws Error when the run fails, extracts a different line count, or posts fewer than every invoice.
 */
export async function importWithIdem(ctx, dialect, input, name, extraEnv = {}) {
  const databaseUrl = ctx.scratch.create(dialect, name);
  const env = { ...idemEnv({ databaseUrl, sandboxUrl: ctx.sandbox.url, concurrency: ctx.concurrency }), ...extraEnv };
  await migrate(ctx, env);
  await ctx.sandbox.reset();
  ctx.log(`idem import on ${dialect} (${name}) …`);
  const cpuBefore = ctx.sandbox.cpuSeconds();
  const result = mustSucceedIdem(await runIdem(ctx, ['run', PIPELINE, '--file', input.file], env, { label: `import-${name}`, measureRss: true }), `idem run on ${dialect}`);
  const cpuAfter = ctx.sandbox.cpuSeconds();
  const summary = singleSummary(result.output, 'completed', `idem run on ${dialect}`);
  const split = stageSplit(summary);
  const extracted = summary.counts?.extract?.rows;
  if (extracted !== input.lines) throw new Error(`idem on ${dialect} extracted ${extracted} rows; the file has ${input.lines} data lines`);
  if (summary.counts?.upsert?.inserted !== input.invoices) throw new Error(`idem on ${dialect} inserted ${summary.counts?.upsert?.inserted} rows; the file has ${input.invoices} invoices`);
  if (split.posted !== input.invoices) throw new Error(`idem on ${dialect} posted ${split.posted} of ${input.invoices} invoices`);
  const workSeconds = result.seconds - split.postMs / 1000;
  ctx.log(`idem on ${dialect}: ${result.seconds.toFixed(2)} s wall, post stage ${(split.postMs / 1000).toFixed(2)} s, without post ${workSeconds.toFixed(2)} s, peak RSS ${(result.rssKb / 1024).toFixed(0)} MB`);
  return {
    databaseUrl, env, seconds: result.seconds, rssKb: result.rssKb, summary, split, workSeconds, output: result.output,
    sandboxCpuSeconds: cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined,
  };
}
