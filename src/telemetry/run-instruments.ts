import { ValueType, type Counter, type Histogram, type Meter } from '@opentelemetry/api';

/** Seconds: bucket bounds for request and lock-wait durations (OpenTelemetry's HTTP semantic conventions' advice). */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The metrics a run records (docs/operating.md, "Telemetry", lists them with their attributes). */
export interface RunInstruments {
  /** `idem.runs`: runs ended, by `idem.outcome` and `process.exit.code`. */
  readonly runs: Counter;
  /** `idem.run.duration` (s), by `idem.outcome`. */
  readonly runDuration: Histogram;
  readonly rowsRead: Counter;
  readonly rowsQuarantined: Counter;
  readonly rowsInserted: Counter;
  readonly rowsUpdated: Counter;
  readonly rowsUnchanged: Counter;
  /** `idem.posts`: post ledger items this process settled, by `idem.destination` and `idem.post.outcome`. */
  readonly posts: Counter;
  /** `idem.destination.request.duration` (s): request sent to response headers, by `idem.destination`. */
  readonly requestDuration: Histogram;
  /** `idem.lock.wait.duration` (s): asking for the app lock, by `idem.lock.acquired`. */
  readonly lockWait: Histogram;
}

/** Creates the run instruments on `meter`. */
export function createRunInstruments(meter: Meter): RunInstruments {
  const rows = (name: string, description: string): Counter => meter.createCounter(`idem.rows.${name}`, { unit: '{row}', description, valueType: ValueType.INT });
  return {
    runs: meter.createCounter('idem.runs', { unit: '{run}', description: 'Runs ended, by outcome and exit code', valueType: ValueType.INT }),
    runDuration: meter.createHistogram('idem.run.duration', { unit: 's', description: 'Duration of runs, start to summary line' }),
    rowsRead: rows('read', 'Source rows read'),
    rowsQuarantined: rows('quarantined', 'Source rows quarantined'),
    rowsInserted: rows('inserted', 'Target rows inserted by the upsert'),
    rowsUpdated: rows('updated', 'Target rows updated by the upsert (a value changed)'),
    rowsUnchanged: rows('unchanged', 'Staged records whose target row was unchanged'),
    posts: meter.createCounter('idem.posts', { unit: '{item}', description: 'Post ledger items settled by this process, by outcome', valueType: ValueType.INT }),
    requestDuration: meter.createHistogram('idem.destination.request.duration', {
      unit: 's',
      description: 'Latency of requests to a destination: sent to response headers (or error)',
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    }),
    lockWait: meter.createHistogram('idem.lock.wait.duration', { unit: 's', description: 'Time taken to ask for the app lock', advice: { explicitBucketBoundaries: SECONDS_BUCKETS } }),
  };
}
