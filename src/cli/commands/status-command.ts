import { loadConfig } from '../../config/load-config.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { assertPipelineExists } from '../../pipeline/load-pipeline.ts';
import { countItemsNeedingOperator } from '../../ledger/ledger-reports.ts';
import { parseBusinessDate } from '../../runs/business-date.ts';
import { runLiveness } from '../../runs/run-liveness.ts';
import { escapeControlCharacters } from '../../text/escape-control-characters.ts';
import type { JobRun } from '../../runs/job-run.ts';
import { listJobRuns } from '../../runs/job-runs-queries.ts';
import { listRecordedAttempts } from '../../runs/job-run-attempts-queries.ts';
import { formatTable } from '../../text/format-table.ts';
import { withSession } from '../session.ts';
import { commandIo } from '../../command-io/command-io.ts';

/** The most recorded attempts `idem status --date D --json` lists per run (the run page shows them all, a page at a time). */
const ATTEMPT_HISTORY_ROWS = 50;

function durationMs(run: JobRun): number | null {
  return run.finishedAt === null ? null : Date.parse(run.finishedAt) - Date.parse(run.startedAt);
}

function summarize(counts: JobRun['counts']): string {
  const c = (counts ?? {}) as Record<string, Record<string, unknown>>;
  const parts: string[] = [];
  if (c.extract?.rows !== undefined) parts.push(`rows ${c.extract.rows}`);
  if (c.extract?.quarantined) parts.push(`quarantined ${c.extract.quarantined}`);
  if (c.upsert) parts.push(`+${c.upsert.inserted} ~${c.upsert.updated} =${c.upsert.unchanged}`);
  const deletions = c.upsert?.deletions as { deleted: number; tombstoned: number; undeleted: number } | undefined;
  if (deletions) parts.push(`deleted ${deletions.deleted + deletions.tombstoned}, back ${deletions.undeleted}`);
  const post = Object.entries((c.post ?? {}) as Record<string, Record<string, number | undefined>>);
  if (c.ledger) {
    // The run key's items by status, every process sharing the post stage together.
    const items = c.ledger as Record<string, number>;
    parts.push(['posted', 'failed', 'review'].filter((status) => status === 'posted' || items[status]).map((status) => `${status} ${items[status] ?? 0}`).join(' '));
    // How the run's own process posted its share (`idem work` processes log theirs).
    for (const [destination, counts] of post) if (counts.created !== undefined) parts.push(`${destination}: ${postedBy(counts)}`);
  } else {
    for (const [destination, counts] of post) parts.push(`${destination}: posted ${counts.posted} (${postedBy(counts)})`);
  }
  return parts.join(', ');
}

/** A destination's posted items apart: `2 created, 1 updated, 406 found`, or `sent N` for counts older than that split. */
function postedBy(counts: Record<string, number | undefined>): string {
  if (counts.created === undefined) return `sent ${counts.sent}`;
  const deleted = counts.deleted || counts.unsent ? `, ${counts.deleted ?? 0} deleted${counts.unsent ? ` (${counts.unsent} never posted: nothing sent)` : ''}` : '';
  return `${counts.created} created, ${counts.updated} updated, ${counts.found} found${deleted}`;
}

/**
 * `idem status [PIPELINE] [--date D] [--json]`: run history (attempts, with those that died), dead
 * runs (`started`, but their process is gone: see `runLiveness`), each failed or stopped run's reason in one
 * line, and ledger items needing an operator. With `--date` and `--json`, each run also carries
 * `attemptHistory`: its newest 50 recorded attempts (`job_run_attempts`), newest first.
 */
export async function statusCommand(name: string | undefined, options: { date?: string; json?: boolean; limit?: number }): Promise<Outcome> {
  const config = loadConfig();
  if (name !== undefined) assertPipelineExists(config.projectDir, name);
  const runKey = options.date === undefined ? undefined : parseBusinessDate(options.date);
  return withSession<Outcome>(
    async ({ db }) => {
      const limit = options.limit ?? 50;
      const runs = await listJobRuns(db, { ...(name ? { jobName: name } : {}), ...(runKey ? { runKey } : {}), limit });
      const operator = await countItemsNeedingOperator(db, name);
      const nowMs = (config.now ?? new Date()).getTime();
      const staleMs = Math.max(config.lockLeaseMs, config.heartbeatMs * 3);
      const view = [];
      for (const run of runs) {
        const liveness = await runLiveness(db, run, nowMs, staleMs);
        const dead = liveness.state === 'dead' ? liveness.why : null;
        // `stuck` is the older name of `dead !== null`, kept for readers of --json.
        // One run key asked for: each run's recorded attempts too, newest first (one query per pipeline).
        const history = runKey === undefined ? {} : { attemptHistory: await listRecordedAttempts(db, { jobRunId: run.id, limit: ATTEMPT_HISTORY_ROWS }) };
        view.push({ ...run, dead, stuck: dead !== null, durationMs: durationMs(run), ...history });
      }
      if (options.json) {
        commandIo().stdout.write(`${JSON.stringify({ runs: view, itemsNeedingOperator: operator }, null, 2)}\n`);
        if (runs.length === limit) commandIo().stderr.write(`idem: showing the newest ${limit} runs; --limit N shows more\n`);
        return 'completed';
      }
      const rows = view.map((r) => [
        r.jobName,
        r.runKey,
        r.dead !== null ? `DEAD (started, ${r.dead})` : r.status,
        r.diedAttempts > 0 ? `${r.attempts} (${r.diedAttempts} died)` : String(r.attempts),
        r.triggeredBy,
        r.durationMs === null ? '-' : `${(r.durationMs / 1000).toFixed(1)}s`,
        summarize(r.counts),
      ]);
      let out = runs.length ? formatTable(['pipeline', 'run key', 'status', 'attempts', 'triggered by', 'duration', 'counts'], rows) : 'no runs recorded\n';
      // Each failed or stopped run's reason, one line each: the first line of its error.
      const endedEarly = view.filter((r) => (r.status === 'failed' || r.status === 'stopped') && r.error);
      if (endedEarly.length > 0) out += '\n';
      for (const r of endedEarly) out += `${r.jobName} ${r.runKey} ${r.status}: ${escapeControlCharacters(r.error!.split('\n')[0]!)}\n`;
      const unavailable = view.filter((r) => r.status === 'unavailable');
      if (unavailable.length > 0 && endedEarly.length === 0) out += '\n';
      for (const r of unavailable) out += `${r.jobName} ${r.runKey} unavailable: items failed transiently (the destination stayed unavailable through every retry); run it again later\n`;
      for (const [job, { review, failed, duplicatesAtDestination }] of Object.entries(operator)) {
        const duplicates = duplicatesAtDestination > 0 ? ` (${duplicatesAtDestination} of them duplicates at the destination: records held more than once there)` : '';
        out += `\n${job}: ${review} item(s) in review${duplicates}, ${failed} failed — see idem review ${job}\n`;
      }
      if (runs.length === limit) out += `\nshowing the newest ${limit} runs; --limit N shows more, --date D one run key\n`;
      commandIo().stdout.write(out);
      return 'completed';
    },
    { config, existing: true },
  );
}
