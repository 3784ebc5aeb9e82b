import type { DestinationSettings } from './destination-settings.ts';
import type { SourceSettings } from './source-settings.ts';
import type { TelemetrySettings } from './telemetry-settings.ts';

/** idem's settings, resolved once from the environment (and flags), validated and frozen. */
export interface ResolvedConfig {
  /** The project directory: `pipelines/`, `migrations/`, `var/` and relative source paths live here. */
  readonly projectDir: string;
  /**
   * `DATABASE_URL`: `sqlite:PATH`, `postgres://…` / `postgresql://…`, `mysql://…` / `mariadb://…`,
   * `mssql://…` / `sqlserver://…`.
   * @defaultValue `sqlite:<projectDir>/var/idem.sqlite3` (created on first use)
   */
  readonly databaseUrl: string;
  /**
   * `IDEM_LOCK_LEASE_MS`: SQLite app-lock lease in ms. A killed run's lock frees itself after
   * this long; the holder renews it every third of it. @defaultValue 30000
   */
  readonly lockLeaseMs: number;
  /** `IDEM_HEARTBEAT_MS`: how often a run refreshes `job_runs.heartbeat_at`, in ms. @defaultValue 10000 */
  readonly heartbeatMs: number;
  /**
   * `IDEM_CLAIM_TTL_MS`: how long a post ledger claim lasts, in ms (docs/scaling.md). A process
   * renews its claims every third of it while it holds them; a killed worker's rows become
   * claimable again this long after its last renewal. @defaultValue 60000
   */
  readonly claimTtlMs: number;
  /**
   * `IDEM_TAKEOVER_GRACE_MS`: under `check-before-create`, how much longer than its requests'
   * timeouts and its destination's settle delay a process waits after another process's claim (or
   * a dead run's lease) ended before it takes the items over, in ms: the longest pause of a sending
   * process between proving its right to send and its request leaving that idem covers
   * (docs/scaling.md, "A process's right to send"). @defaultValue 5000
   */
  readonly takeoverGraceMs: number;
  /**
   * `IDEM_MIGRATE_LOCK_WAIT_MS`: how long `idem migrate` waits for another `idem migrate` on the
   * same database to finish before it exits 75, in ms. @defaultValue 60000
   */
  readonly migrateLockWaitMs: number;
  /**
   * `IDEM_MSSQL_REQUEST_TIMEOUT_MS`: SQL Server only: how long a statement may wait for the
   * server's first answer before the driver (tedious) cancels it, in ms; 0 waits forever. Logged
   * at session start. @defaultValue 30000
   */
  readonly mssqlRequestTimeoutMs: number;
  /**
   * `IDEM_STOP_GRACE_MS`: how long a polite stop (the first SIGTERM, SIGINT or SIGHUP) lets the
   * work in flight finish (requests to destinations, a transaction) before it stops at once, in
   * ms. Keep it below the scheduler's own wait before its SIGKILL (Kubernetes'
   * `terminationGracePeriodSeconds`, 30 s by default; systemd's `TimeoutStopSec`, 90 s by
   * default). @defaultValue 10000
   */
  readonly stopGraceMs: number;
  /**
   * `IDEM_READ_THREADS`: the threads that read a run's source. 1: the run's own thread reads,
   * parses and validates it between its database and HTTP work. 2: a thread of its own does that
   * for a source kind that `readsInWorker` (a CSV file) of a pipeline loaded from its module, and
   * hands the validated rows over in batches while the run's thread stages them (docs/scaling.md,
   * "Reading on another core"). @defaultValue 1 (`DEFAULT_READ_THREADS`)
   */
  readonly readThreads: 1 | 2;
  /** `LOG_LEVEL`: pino level. @defaultValue 'info' */
  readonly logLevel: string;
  /**
   * OpenTelemetry export of runs' traces and metrics, from the standard `OTEL_*` variables (see
   * `telemetrySettings`, docs/operating.md "Telemetry"). @defaultValue undefined: none, and the
   * SDK is never loaded
   */
  readonly telemetry?: TelemetrySettings | undefined;
  /** `IDEM_SOURCE_DIR`: overrides every pipeline's source directory. @defaultValue undefined */
  readonly sourceDir: string | undefined;
  /** `IDEM_FAILPOINTS`: fault injection for tests, see `Failpoints`. @defaultValue undefined */
  readonly failpoints: string | undefined;
  /**
   * `IDEM_DESTINATIONS`: JSON object of destination settings by name (URL, headers, overrides),
   * see `DestinationSettingsSchema`. @defaultValue {}
   */
  readonly destinations: Readonly<Record<string, DestinationSettings>>;
  /**
   * `IDEM_SOURCES`: JSON object of HTTP source settings by pipeline name (base URL, headers,
   * `http` overrides), see `SourceSettingsSchema`. A run of a pipeline with an HTTP source and
   * no entry stops with a usage error before it takes the lock. @defaultValue {}
   */
  readonly sources: Readonly<Record<string, SourceSettings>>;
  /**
   * `IDEM_HEARTBEATS`: JSON object of healthchecks.io-style ping URLs by pipeline name;
   * `--heartbeat-url` overrides it for one command. @defaultValue {}
   */
  readonly heartbeats: Readonly<Record<string, string>>;
  /**
   * `IDEM_NOW`: an ISO instant that stands in for the clock when `today`, `yesterday` and
   * `--catch-up` are resolved (tests, and replaying a missed night by hand). @defaultValue the clock
   */
  readonly now: Date | undefined;
  /**
   * `IDEM_TRIGGERED_BY`: who or what starts the commands of this environment, for example a
   * scheduler's job (`airflow nightly_sync`, `cron@etl-1`): recorded as the `triggered_by` of
   * `job_runs` and of each attempt (`job_run_attempts`) where `--triggered-by` is not given, at most
   * 200 characters. @defaultValue undefined: the OS user
   */
  readonly triggeredBy?: string | undefined;
}
