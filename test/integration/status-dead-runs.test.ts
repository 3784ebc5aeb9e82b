import { expect, it } from 'vitest';
import { pipeline } from '../../pipelines/online-retail-invoices.ts';
import { describeEachDialect } from '../helpers/dialects.ts';
import { editedFixture } from '../helpers/fixtures.ts';
import { openFaultWorld } from '../helpers/open-fault-world.ts';
import { runCli, runCliWhenUnlocked } from '../helpers/run-cli.ts';

// Issue 14: a run whose process is gone shows as dead, not running; the next attempt records
// that it died; each failed run's reason is one line of `idem status`.
describeEachDialect('idem status: dead runs, died attempts, failure reasons', (dialect) => {
  it.concurrent('a killed run is DEAD, the rerun counts the attempt that died, a failed run says why in one line', async () => {
    const world = await openFaultWorld(dialect, 'status-dead');
    try {
      const env = world.env();
      const killed = await runCli(['run', pipeline.name, '--date', '2010-12-01'], { ...env, IDEM_FAILPOINTS: 'before-complete=kill' });
      expect(killed.signal).toBe('SIGKILL');
      // A server frees the dead session's lock at once; SQLite's lease (1 s here) tells by the heartbeat.
      const at = dialect === 'sqlite' ? { IDEM_NOW: new Date(Date.now() + 120_000).toISOString() } : {};
      const status = await runCli(['status', pipeline.name], { ...env, ...at });
      expect(status.code, status.stderr).toBe(0);
      const why = dialect === 'sqlite' ? /DEAD \(started, no heartbeat for \d+ s\)/ : /DEAD \(started, its app lock is free: no process holds it\)/;
      expect(status.stdout).toMatch(new RegExp(`2010-12-01\\s+${why.source}`));
      const json = JSON.parse((await runCli(['status', '--json'], { ...env, ...at })).stdout);
      expect(json.runs[0]).toMatchObject({ runKey: '2010-12-01', status: 'started', stuck: true, dead: expect.stringMatching(/heartbeat|lock is free/) });

      const rerun = await runCliWhenUnlocked(['run', pipeline.name, '--date', '2010-12-01'], env);
      expect(rerun.code, rerun.stderr).toBe(0);
      const broken = editedFixture('2010-12-02', (line, n) => (n === 5 ? line.replace(/,\d+,2010-12-02/, ',\u001b[2Jx,2010-12-02') : line));
      expect((await runCli(['run', pipeline.name, '--date', '2010-12-02'], { ...env, IDEM_SOURCE_DIR: broken })).code).toBe(1);

      const after = await runCli(['status', pipeline.name], env);
      expect(after.stdout).toMatch(/2010-12-01\s+completed\s+2 \(1 died\)/);
      const reason = after.stdout.split('\n').filter((line) => line.startsWith(`${pipeline.name} 2010-12-02 failed: `));
      expect(reason).toHaveLength(1);
      expect(reason[0]).toContain('Quantity');
      expect(after.stdout).not.toContain('\u001b');
      // A listing capped by --limit says so, and how to see the rest.
      const capped = await runCli(['status', pipeline.name, '--limit', '1'], env);
      expect(capped.stdout).toContain('\nshowing the newest 1 runs; --limit N shows more, --date D one run key\n');
      expect(after.stdout).not.toContain('showing the newest');
    } finally {
      await world.close();
    }
  });
});
