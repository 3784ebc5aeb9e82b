import type { Logger } from 'pino';
import { SILENT_PROGRESS } from '../progress/progress.ts';
import type { AppLock } from '../dialect/app-lock.ts';
import { QuarantineError } from '../errors/quarantine-error.ts';
import { QuarantineWriter } from '../quarantine/quarantine-writer.ts';
import { findSourceMark, setPendingSourceMark } from '../runs/source-marks-queries.ts';
import { HighWaterMark } from '../source/high-water-mark.ts';
import { cursorOfRow } from '../source/cursor-of-row.ts';
import { readSourceOnThreads } from './read-source-on-threads.ts';
import { sourceKindOf } from '../source/source-kinds.ts';
import { RereadableRows } from '../source/rereadable-rows.ts';
import { UnchangedFileCheck } from '../source/unchanged-file-check.ts';
import type { SourceRow } from '../source/source-row.ts';
import { applyDuplicateKeyRule } from '../stage/apply-duplicate-key-rule.ts';
import { ChangeDetection } from '../stage/change-detection.ts';
import { stageRecords } from '../stage/stage-records.ts';
import { upsertStaged } from '../upsert/upsert-staged.ts';
import { DerivedScopes } from './derived-scopes.ts';
import { countDeletions, newerRunKeyInTarget } from '../upsert/record-deletions-sql.ts';
import { deletesRecords } from '../pipeline/record-deletions.ts';
import { deletionsHeld } from './delete-guard.ts';
import type { FailpointName } from './failpoints.ts';
import type { RunContext } from './run-context.ts';
import type { RunRequest } from './run-request.ts';

/** Rows between progress updates: drawing must cost nothing next to reading. */
const PROGRESS_EVERY_ROWS = 500;

/** Per-stage counts of one attempt, as `job_runs.counts` holds them. */
export type RunCounts = Record<string, Record<string, unknown>>;

/**
 * The work of one attempt after the lock and the `job_runs` row: extract and stage (streamed
 * together), the quarantine rule, the duplicate-key rule, then upsert with the post ledger
 * enqueue. The app lock is proven before every durable step. Loaded only when a run proceeds,
 * so a no-op never imports the CSV, staging and HTTP code.
 */
export async function runStages(
  ctx: RunContext,
  request: RunRequest,
  run: { lock: AppLock; log: Logger; counts: RunCounts; sourceLocation: string; now: () => string; keepStaging?: boolean; dryRun?: boolean; unchanged?: UnchangedFileCheck },
): Promise<void> {
  const { db } = ctx;
  const { pipeline, runKey } = request;
  const { lock, log, counts, sourceLocation } = run;
  // Every stage boundary (and every staged batch or change-detection look-up) is where a polite
  // stop ends the attempt: staging is replaced by the next attempt, and the upsert has committed
  // or not begun.
  const boundary = async (name: FailpointName): Promise<void> => {
    await ctx.failpoints?.hit(name, log);
    ctx.stop?.signal.throwIfAborted();
  };

  // A file run of a pipeline whose derived tables cannot know their dates is refused before it reads.
  const scopes = new DerivedScopes(pipeline, runKey);
  let started = performance.now();
  await boundary('before-stage');
  await lock.assertHeld();
  // An incremental source reads what changed since its mark; `--force` (and `--force-reconcile`,
  // which implies it) reads everything.
  const kind = sourceKindOf(pipeline.source);
  const incremental = kind.incremental?.(pipeline.source);
  const readsEverything = request.force || request.forceReconcile;
  const since = incremental && !readsEverything ? ((await findSourceMark(db, pipeline.name))?.mark ?? undefined) : undefined;
  // Every read of a file is checked against the run's first read and the `--file` run key's hash.
  const unchanged = run.unchanged ?? new UnchangedFileCheck(runKey.kind === 'file' ? runKey.sha256 : undefined);

  /**
   * One pass of extract + stage: staging and this attempt's quarantine start empty each time.
   * With `detectChanges`, records the target holds as they are stay out of staging.
   */
  const extractAndStage = async (rereadable: boolean, detectChanges: boolean) => {
    let rows = 0;
    const quarantine = new QuarantineWriter(db, pipeline.name, runKey.value, run.now());
    await quarantine.clear();
    const mark = incremental ? new HighWaterMark(incremental.type, since) : undefined;
    const progress = (ctx.progress ?? SILENT_PROGRESS)('extract', kind.sizeOf?.(sourceLocation), 'rows');
    const quarantineRow = quarantine.add.bind(quarantine);
    const countRow = (row: SourceRow<unknown>): void => {
      rows += 1;
      if (rows % PROGRESS_EVERY_ROWS === 0) progress.update(row.bytes ?? 0, rows);
      if (incremental) {
        const what = `${sourceLocation}: item ${row.line}`;
        mark!.see(cursorOfRow(incremental, row.value, what), what);
      }
    };
    const sourceRows = await readSourceOnThreads(pipeline, sourceLocation, quarantineRow, {
      settings: ctx.config.sources[pipeline.name],
      onRetry: (url, { attempt, failure, delayMs }) => log.warn({ stage: 'extract', url, requestAttempt: attempt, reason: failure.reason, delayMs }, `retrying a source page: ${failure.reason}`),
      onRow: countRow,
      unchanged,
      ...(since === undefined ? {} : { since }),
      runKey,
      context: { pipelineName: pipeline.name, timeZone: pipeline.timeZone, config: ctx.config },
    }, {
      threads: ctx.config.readThreads,
      onThread: (threadId) => log.info({ stage: 'extract', source: sourceLocation, readThread: threadId }, `reading the source on thread ${threadId} (IDEM_READ_THREADS=2)`),
      onThisThread: (reason) => log.info({ stage: 'extract', source: sourceLocation }, `IDEM_READ_THREADS=2: the rest of the source is read on the run's own thread, as its rows cannot be sent from another (the row schema makes ${reason})`),
    });
    const marked = rereadable ? new RereadableRows(sourceRows) : undefined;
    const changes = detectChanges ? new ChangeDetection(db, pipeline) : undefined;
    try {
      const records = scopes.watch(pipeline.toRecords(marked ?? sourceRows));
      const loaded = await stageRecords(db, pipeline, records, {
        runKey: runKey.value, batchRows: request.batchRows, source: sourceLocation, quarantine: quarantineRow, afterBatch: () => boundary('mid-stage'), ...(changes ? { changes } : {}),
      });
      return { loaded, rows, quarantine, mark, rereadReason: marked?.rereadReason, changes };
    } finally {
      progress.stop();
    }
  };
  // A file can be read twice: groupRows first assumes its rows come grouped by key and skips its
  // sort; at the first key that comes back it asks for the file to be read again (staging and
  // the quarantine of that pass are thrown away: the next pass replaces both).
  // Change detection leaves out what the target holds as it is, except in a dry run (its plan
  // names the unchanged records staging holds) and with --force-reconcile (which trusts no
  // stored row hash). A record it left out that occurs again in the run is read once more
  // without it, so the duplicate-key rule judges every record.
  const detectChanges = !run.dryRun && !request.forceReconcile && (await ChangeDetection.applies(db, pipeline));
  let grouped = kind.rereadable;
  let pass = await extractAndStage(grouped, detectChanges);
  if (pass.rereadReason !== undefined) {
    log.info({ stage: 'extract', source: sourceLocation }, `${pass.rereadReason}: reading it again, grouped by the sort`);
    await lock.assertHeld();
    grouped = false;
    pass = await extractAndStage(grouped, detectChanges);
  }
  if (await pass.changes?.leftOutKeyRecurs()) {
    log.info({ stage: 'extract', source: sourceLocation }, 'a record the target holds as it is occurs more than once in the source: reading it again, staging every record for the duplicate-key rule');
    await lock.assertHeld();
    pass = await extractAndStage(grouped, false);
  }
  const { loaded, rows, quarantine, mark } = pass;
  const leftOut = pass.changes?.unchanged ?? 0;
  await boundary('after-extract');
  await quarantine.flush();
  counts.extract = { source: sourceLocation, rows, quarantined: quarantine.count, ...(mark ? { since: since ?? null, upTo: mark.value ?? null } : {}) };
  log.info({ stage: 'extract', ...counts.extract }, `extracted ${rows} rows, ${quarantine.count} quarantined${mark ? `, ${since === undefined ? 'everything' : `changed since ${since}`}` : ''}`);

  if (quarantine.count > 0 && pipeline.source.invalidRows === 'fail') {
    const first = quarantine.first!;
    throw new QuarantineError(quarantine.count, `${first.source}:${first.line ?? '?'}: ${first.reason}`);
  }
  if (mark) {
    await lock.assertHeld();
    await setPendingSourceMark(db, { jobName: pipeline.name, runKey: runKey.value, mark: mark.value ?? null, now: run.now() });
  }
  const removed = await applyDuplicateKeyRule(db, pipeline);
  const staged = loaded - removed;
  counts.stage = { records: loaded + leftOut, duplicatesRemoved: removed, staged, ...(pass.changes ? { unchanged: leftOut } : {}), ms: Math.round(performance.now() - started) };
  log.info({ stage: 'stage', ...counts.stage }, `staged ${staged} records${pass.changes ? `, ${leftOut} left out as the target holds them` : ''}`);
  await boundary('after-stage');

  started = performance.now();
  const deletions = deletesRecords(pipeline) ? await decideDeletions(db, request, { quarantined: quarantine.count, log, counts }) : undefined;
  await lock.assertHeld();
  // A stop that comes during the upsert lets its transaction commit (its work is done by then)
  // and ends the attempt at the next boundary; the end of the stop's grace rolls it back.
  const beforeCommit = (): Promise<void> => ctx.failpoints?.hit('mid-upsert', log) ?? Promise.resolve();
  const upserted = await upsertStaged(db, pipeline, { runKey: runKey.value, staged, unchanged: leftOut, nowIso: run.now(), scopes: scopes.byTable(), countIdentical: run.dryRun === true, ...(deletions ? { deletions } : {}), beforeCommit });
  counts.upsert = { ...upserted, ms: Math.round(performance.now() - started) };
  const deleted = upserted.deletions;
  log.info(
    { stage: 'upsert', ...counts.upsert },
    `upserted: ${upserted.inserted} inserted, ${upserted.updated} updated, ${upserted.unchanged} unchanged` +
      (deleted ? `, ${deleted.deleted + deleted.tombstoned} marked deleted, ${deleted.undeleted} back from deleted` : ''),
  );
  if (!run.keepStaging) await db.adapter.clearStaging(db.knex, pipeline.tables.staging);
  await boundary('after-upsert');
}

/**
 * What the upsert of a pipeline that deletes records marks (see `markDeletions`): nothing for a
 * run key older than one that wrote the target (a backfill never deletes what newer exports
 * hold, nor brings back what they deleted); no absences when the read quarantined rows (their
 * records are in the source, not deleted); else the tombstones and what the staged read lacks,
 * once the delete guard lets it (`deletionsHeld`). A dry run records what the guard says in its
 * counts instead of stopping.
 * @throws DeletionsHeldError (exit 3) when the guard stops the run, before anything is written.
 */
async function decideDeletions(
  db: RunContext['db'],
  request: RunRequest,
  run: { quarantined: number; log: Logger; counts: RunCounts },
): Promise<{ marks: boolean; snapshot: boolean }> {
  const { pipeline, runKey } = request;
  const { log, counts } = run;
  const newer = await newerRunKeyInTarget(db, pipeline, runKey);
  if (newer !== undefined) {
    counts.deletions = { marked: false, newerRunKey: newer };
    log.info({ stage: 'upsert', newerRunKey: newer }, `${runKey.value} is not the newest run key (${newer} is): no record is marked deleted or back`);
    return { marks: false, snapshot: false };
  }
  let snapshot = pipeline.source.snapshot === 'full';
  if (snapshot && run.quarantined > 0) {
    snapshot = false;
    log.warn({ stage: 'upsert', quarantined: run.quarantined }, `${run.quarantined} row(s) quarantined: the read is no full snapshot, so no record is marked deleted for its absence`);
  }
  const counted = await countDeletions(db, pipeline, snapshot);
  const absent = counted.scopes.reduce((sum, scope) => sum + scope.absent, 0);
  const held = snapshot ? deletionsHeld(pipeline, counted, request.allowDeletes) : undefined;
  counts.deletions = { marked: true, snapshot, absent, tombstoned: counted.tombstoned, ...(held ? { held: held.message } : {}) };
  if (held && !request.dryRun) throw held;
  return { marks: true, snapshot };
}
