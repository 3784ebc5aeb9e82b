import { loadConfig } from '../../config/load-config.ts';
import { UsageError } from '../../errors/usage-error.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { assertPipelineExists } from '../../pipeline/load-pipeline.ts';
import type { LedgerItem } from '../../ledger/ledger-item.ts';
import { selectItemsNeedingOperator } from '../../ledger/ledger-reports.ts';
import { markReviewItemPosted, retryReviewItem } from '../../post/resolve-review-item.ts';
import { escapeControlCharacters } from '../../text/escape-control-characters.ts';
import { formatTable } from '../../text/format-table.ts';
import { withSession } from '../session.ts';
import type { Database } from '../../db/database.ts';
import { findJobRun } from '../../runs/job-runs-queries.ts';
import { repostFlags } from '../../runner/repost-run.ts';
import { commandIo } from '../../command-io/command-io.ts';

/**
 * The `idem run` flag that names a run key again: `--date D`, or for a file run key `--file` with
 * the path its last attempt read (`job_runs.counts.extract.source`), else the file's name.
 */
async function runKeyFlag(db: Database, pipeline: string, runKey: string): Promise<string> {
  if (!runKey.startsWith('file:')) return `--date ${runKey}`;
  const source = ((await findJobRun(db, pipeline, runKey))?.counts as { extract?: { source?: unknown } } | null)?.extract?.source;
  // Shown, never acted on: a control character in a file name prints escaped.
  return `--file ${escapeControlCharacters(typeof source === 'string' ? source : runKey.slice('file:'.length, runKey.lastIndexOf('@sha256:')))}`;
}

/** The command that runs a run key again: `idem run …`, or `idem repost …` for a repost's. */
async function rerunCommand(db: Database, pipeline: string, runKey: string): Promise<string> {
  const repost = repostFlags(runKey);
  return repost === undefined ? `idem run ${pipeline} ${await runKeyFlag(db, pipeline, runKey)}` : `idem repost ${pipeline} ${escapeControlCharacters(repost)}`;
}

async function formatReview(db: Database, pipeline: string, items: readonly LedgerItem[]): Promise<string> {
  if (items.length === 0) return `${pipeline}: no items in review or failed\n`;
  const transientKeys = [...new Set(items.filter((i) => i.status === 'failed' && i.failureKind === 'transient').map((i) => i.runKey))];
  const needCheck = items.some((i) => !(i.status === 'failed' && i.failureKind === 'transient'));
  const reruns = await Promise.all(transientKeys.map(async (key) => `  ${await rerunCommand(db, pipeline, key)}`));
  const rows = items.map((i) => [i.destination, i.sourceReference, i.failureKind ? `${i.status} (${i.failureKind})` : i.status, String(i.attempts), i.runKey, (i.lastError ?? '').slice(0, 80)]);
  return (
    formatTable(['destination', 'reference', 'status', 'attempts', 'run key', 'last error'], rows) +
    [
      ...(transientKeys.length > 0
        ? ['', 'Items failed (transient): the destination was unavailable. Nothing to check there: once it is back, rerun their run key:', ...reruns]
        : []),
      ...(needCheck
        ? [
            '',
            'To resolve an item in review or failed (terminal), check the destination for its reference, then:',
            `  it is there:      idem review ${pipeline} --mark-posted <reference> --remote-ref <its id there>`,
            `  it is not there:  idem review ${pipeline} --retry <reference>   then rerun its run key (idem run ${pipeline} --date <run key>, or --file <path> for a file run key)`,
          ]
        : []),
      '',
    ].join('\n')
  );
}

/** `idem review PIPELINE [--mark-posted REF --remote-ref X | --retry REF]`. */
export async function reviewCommand(name: string, options: { markPosted?: string; remoteRef?: string; retry?: string; destination?: string }): Promise<Outcome> {
  const config = loadConfig();
  assertPipelineExists(config.projectDir, name);
  if (options.markPosted !== undefined && options.retry !== undefined) throw new UsageError('use either --mark-posted or --retry, not both');
  if (options.markPosted !== undefined && options.remoteRef === undefined) throw new UsageError('--mark-posted needs --remote-ref <id>');
  return withSession<Outcome>(
    async ({ db }) => {
      const ref = { jobName: name, ...(options.destination ? { destination: options.destination } : {}), nowIso: new Date().toISOString() };
      if (options.markPosted !== undefined) {
        const { item, runCompleted } = await markReviewItemPosted(db, { ...ref, reference: options.markPosted, remoteReference: options.remoteRef! });
        commandIo().stdout.write(`${item.sourceReference} marked posted at ${item.destination} as ${options.remoteRef}${runCompleted ? `; run ${item.runKey} is now completed` : ''}\n`);
      } else if (options.retry !== undefined) {
        const item = await retryReviewItem(db, { ...ref, reference: options.retry });
        commandIo().stdout.write(`${item.sourceReference} will be sent again; now run: ${await rerunCommand(db, name, item.runKey)}\n`);
      } else {
        commandIo().stdout.write(await formatReview(db, name, await selectItemsNeedingOperator(db, { jobName: name })));
      }
      return 'completed';
    },
    { config, existing: true },
  );
}
