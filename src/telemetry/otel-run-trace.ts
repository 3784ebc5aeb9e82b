import { context, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { redactSecrets } from '../text/redact-secrets.ts';
import type { RunInstruments } from './run-instruments.ts';
import type { RunEnd, RunStart, RunTrace, WorkStart } from './telemetry.ts';

/** The stages whose counts, when written, end a span of their name. */
const STAGE_SPANS: ReadonlySet<string> = new Set(['extract', 'stage', 'upsert', 'reconcile']);

/** Post counts that are not an item's outcome: requests made and time taken. */
const NOT_POST_OUTCOMES: ReadonlySet<string> = new Set(['sent', 'attempts', 'ms']);

/** Now, in ms since the epoch, with the monotonic clock's resolution (a span's start and end). */
const nowMs = (): number => performance.timeOrigin + performance.now();

/** `duplicatesRemoved` → `duplicates_removed`: OpenTelemetry's attribute naming. */
const snakeCase = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A count object's primitive values as attributes `<prefix>.<key>` (one level of nesting: `<prefix>.<name>.<key>`). */
function countAttributes(prefix: string, counts: Readonly<Record<string, unknown>>): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(counts)) {
    const name = `${prefix}.${snakeCase(key)}`;
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') attributes[name] = value;
    else if (value !== null && typeof value === 'object') Object.assign(attributes, countAttributes(name, value as Record<string, unknown>));
  }
  return attributes;
}

/** The numeric values of a count object. */
function numbers(counts: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (counts !== null && typeof counts === 'object') for (const [key, value] of Object.entries(counts)) if (typeof value === 'number') out[key] = value;
  return out;
}

/** The root of a trace: a run's (`run <pipeline>`) or an `idem work` session's (`work <pipeline>`). */
export interface TraceRoot {
  readonly name: string;
  readonly pipeline: string;
  readonly runKey: string;
  /** The root span's own attributes, besides pipeline and run key. */
  readonly attributes: Attributes;
  readonly dryRun: boolean;
  /** A run's trace counts the run (`idem.runs`, `idem.run.duration`); a worker's does not. */
  readonly isRun: boolean;
}

/** The root of a run's trace. */
export function runRoot(run: RunStart): TraceRoot {
  return { name: `run ${run.pipeline}`, pipeline: run.pipeline, runKey: run.runKey, attributes: { 'idem.run_id': run.runId, 'idem.triggered_by': run.triggeredBy, 'idem.dry_run': run.dryRun }, dryRun: run.dryRun, isRun: true };
}

/** The root of an `idem work` session's trace. */
export function workRoot(work: WorkStart): TraceRoot {
  return { name: `work ${work.pipeline}`, pipeline: work.pipeline, runKey: work.runKey, attributes: { 'idem.worker': work.worker }, dryRun: false, isRun: false };
}

/**
 * One run's trace and metrics (see `RunTrace`), or an `idem work` session's (its post stage only). Its spans are made from what the run already
 * reports: a stage's span ends when the stage writes its counts and starts `ms` earlier when
 * the counts say how long it took (`stage`, `upsert`: extract and stage are one streamed pass,
 * so their spans start together), else where the previous one ended. A destination pass's span
 * is its share of the pass's time, in the order the pass posts the destinations.
 */
export class OtelRunTrace implements RunTrace {
  readonly #tracer: Tracer;
  readonly #instruments: RunInstruments;
  readonly #root: Span;
  readonly #dryRun: boolean;
  readonly #isRun: boolean;
  /** Attributes of every span: pipeline, run key, and the attempt once known. */
  readonly #common: Record<string, string | number>;
  readonly #metricAttributes: Attributes;
  /** Where the next stage's span starts when its counts do not say. */
  #mark = nowMs();
  #post: Span | undefined;
  /** This process's post counts per destination at the last pass. */
  #postSoFar = new Map<string, Record<string, number>>();
  #ended = false;
  /** The destinations' base URLs, for the request latency. */
  readonly destinations: { readonly name: string; readonly url: string }[] = [];

  constructor(tracer: Tracer, instruments: RunInstruments, root: TraceRoot) {
    this.#tracer = tracer;
    this.#instruments = instruments;
    this.#dryRun = root.dryRun;
    this.#isRun = root.isRun;
    this.#common = { 'idem.pipeline': root.pipeline, 'idem.run_key': root.runKey };
    this.#metricAttributes = { 'idem.pipeline': root.pipeline };
    this.#root = tracer.startSpan(root.name, { root: true, startTime: this.#mark, attributes: { ...this.#common, ...root.attributes } });
  }

  /** The pipeline's name, for the metrics recorded outside the run (request latency). */
  get metricAttributes(): Attributes {
    return this.#metricAttributes;
  }

  sendsTo(destination: { readonly name: string; readonly url: string }): void {
    this.destinations.push(destination);
  }

  #child(name: string, startTime: number, attributes: Attributes, parent: Span = this.#root): Span {
    return this.#tracer.startSpan(name, { startTime, attributes: { ...this.#common, ...attributes } }, trace.setSpan(context.active(), parent));
  }

  lockAttempted(waitedMs: number, acquired: boolean): void {
    const end = nowMs();
    this.#child('app lock', end - waitedMs, { 'idem.lock.acquired': acquired }).end(end);
    this.#instruments.lockWait.record(waitedMs / 1000, { ...this.#metricAttributes, 'idem.lock.acquired': acquired });
    this.#mark = end;
  }

  attemptStarted(attempt: number): void {
    // A worker joining a newer attempt: the post counts it reports start again from nothing.
    this.#post?.end();
    this.#post = undefined;
    this.#postSoFar = new Map();
    this.#common['idem.attempt'] = attempt;
    this.#root.setAttribute('idem.attempt', attempt);
    this.#mark = nowMs();
  }

  countsRecorded(stage: string, counts: Readonly<Record<string, unknown>>): void {
    if (this.#ended) return;
    if (stage === 'post') return this.#postPassed(counts);
    if (!STAGE_SPANS.has(stage)) return;
    const end = nowMs();
    const ms = typeof counts.ms === 'number' ? counts.ms : undefined;
    this.#child(stage, ms === undefined ? this.#mark : end - ms, countAttributes(`idem.${stage}`, counts)).end(end);
    this.#mark = end;
  }

  /** The run's post counts per destination after a pass: a span per destination the pass posted to. */
  #postPassed(cumulative: Readonly<Record<string, unknown>>): void {
    const end = nowMs();
    const deltas = Object.entries(cumulative).map(([destination, counts]) => {
      const now = numbers(counts);
      const first = !this.#postSoFar.has(destination);
      const before = this.#postSoFar.get(destination) ?? {};
      this.#postSoFar.set(destination, now);
      const delta = Object.fromEntries(Object.entries(now).map(([key, n]) => [key, n - (before[key] ?? 0)]));
      const strategy = (counts as { strategy?: unknown }).strategy;
      return { destination, strategy: typeof strategy === 'string' ? strategy : undefined, delta, first };
    });
    let start = end - deltas.reduce((sum, { delta }) => sum + (delta.ms ?? 0), 0);
    this.#post ??= this.#child('post', start, {});
    for (const { destination, strategy, delta, first } of deltas) {
      const passEnd = start + (delta.ms ?? 0);
      // A later pass that found nothing to do (the run waiting on other processes) is no span.
      if (first || Object.entries(delta).some(([key, n]) => key !== 'ms' && n > 0)) {
        const attributes = { 'idem.destination': destination, ...(strategy ? { 'idem.strategy': strategy } : {}), ...countAttributes('idem.post', delta) };
        this.#child(`post ${destination}`, start, attributes, this.#post).end(passEnd);
      }
      start = passEnd;
    }
    this.#mark = end;
  }

  end(run: RunEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    const end = nowMs();
    this.#post?.end(end);
    this.#recordMetrics(run);
    const { outcome, exitCode, counts, error } = run;
    const root = this.#root;
    root.setAttributes({ 'idem.outcome': outcome, 'process.exit.code': exitCode, ...countAttributes('idem', Object.fromEntries(Object.entries(counts).filter(([stage]) => stage !== 'post'))) });
    if (error) root.recordException({ name: error.name, message: redactSecrets(error.message) });
    if (error || outcome === 'failed' || outcome === 'needs-review' || outcome === 'unavailable') {
      root.setStatus({ code: SpanStatusCode.ERROR, message: redactSecrets(error?.message ?? `run ${outcome}`) });
    }
    root.end(end);
  }

  #recordMetrics(run: RunEnd): void {
    const { outcome, exitCode, durationMs, counts } = run;
    const attributes = this.#metricAttributes;
    const i = this.#instruments;
    if (this.#isRun) {
      i.runs.add(1, { ...attributes, 'idem.outcome': outcome, 'process.exit.code': exitCode });
      i.runDuration.record(durationMs / 1000, { ...attributes, 'idem.outcome': outcome });
    }
    // A dry run writes and sends nothing: its counts are a plan, not rows moved.
    if (this.#dryRun) return;
    const add = (counter: typeof i.rowsRead, value: unknown, extra: Attributes = {}): void => {
      if (typeof value === 'number') counter.add(value, { ...attributes, ...extra });
    };
    add(i.rowsRead, counts.extract?.rows);
    add(i.rowsQuarantined, counts.extract?.quarantined);
    add(i.rowsInserted, counts.upsert?.inserted);
    add(i.rowsUpdated, counts.upsert?.updated);
    add(i.rowsUnchanged, counts.upsert?.unchanged);
    for (const [destination, posted] of Object.entries(counts.post ?? {})) {
      for (const [key, n] of Object.entries(numbers(posted))) {
        if (!NOT_POST_OUTCOMES.has(key)) add(i.posts, n, { 'idem.destination': destination, 'idem.post.outcome': key });
      }
    }
  }
}
