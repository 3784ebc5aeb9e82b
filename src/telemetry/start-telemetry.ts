import { createNoopMeter, diag, DiagLogLevel, SpanStatusCode, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import { defaultResource, detectResources, resourceAttributesEnvDetector, resourceFromAttributes, serviceNameEnvDetector } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import type { OtlpProtocol, TelemetrySettings } from '../config/telemetry-settings.ts';
import { redactSecrets } from '../text/redact-secrets.ts';
import { recordDestinationRequests } from './destination-request-latency.ts';
import { OtelRunTrace, runRoot, workRoot, type TraceRoot } from './otel-run-trace.ts';
import { createRunInstruments } from './run-instruments.ts';
import type { RunTrace, Telemetry } from './telemetry.ts';

/**
 * How long a command waits at its end for its spans and metrics to be exported, in ms, at most:
 * a collector that is down or slow costs the command this much, never its outcome or exit code.
 */
export const TELEMETRY_FLUSH_MS = 2_000;

/**
 * How often metrics are exported during a command, in ms (the specification's default for
 * `OTEL_METRIC_EXPORT_INTERVAL`); every command also exports them once at its end.
 */
const METRIC_EXPORT_INTERVAL_MS = 60_000;

/** The OTLP trace exporter for `protocol`; each reads the standard `OTEL_EXPORTER_OTLP_*` variables itself. */
async function traceExporter(protocol: OtlpProtocol): Promise<SpanExporter> {
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

/** The OTLP metric exporter for `protocol` (see {@link traceExporter}). */
async function metricExporter(protocol: OtlpProtocol): Promise<PushMetricExporter> {
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter();
  return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter();
}

/** Waits for `work`, or `ms`, whichever comes first. @returns whether `work` settled in time. */
async function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([work.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts the OpenTelemetry SDK for one command: traces and metrics over OTLP/HTTP (protobuf, or
 * JSON with `http/json`; `grpc` is not supported and is said so in a warning, that signal off),
 * with the resource `service.name` `idem` (`OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`
 * override it) and `service.version`. This module and the SDK are loaded only when telemetry is
 * configured (`ResolvedConfig.telemetry`). Nothing is registered globally. Export problems, and
 * any error while recording, are logged as warnings; none reaches the command.
 */
export async function startTelemetry(settings: TelemetrySettings, options: { readonly serviceVersion: string; readonly log: Logger }): Promise<Telemetry> {
  const log = options.log.child({ telemetry: 'otlp' });
  diag.setLogger(
    {
      error: (message) => log.warn(redactSecrets(message)),
      warn: (message) => log.warn(redactSecrets(message)),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    DiagLogLevel.WARN,
  );
  const supported = (signal: 'traces' | 'metrics'): OtlpProtocol | undefined => {
    const protocol = settings[signal];
    if (protocol !== 'grpc') return protocol;
    log.warn(`OTLP over grpc is not supported: no ${signal} are exported (set OTEL_EXPORTER_OTLP_PROTOCOL to http/protobuf or http/json, and the collector's HTTP port, 4318)`);
    return undefined;
  };
  const tracesProtocol = supported('traces');
  const metricsProtocol = supported('metrics');
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'idem', 'service.version': options.serviceVersion }))
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector, serviceNameEnvDetector] }));

  const tracerProvider = tracesProtocol ? new TracerProvider({ resource, spanProcessors: [new BatchSpanProcessor({ exporter: await traceExporter(tracesProtocol) })] }) : undefined;
  const meterProvider = metricsProtocol
    ? new MeterProvider({ resource, readers: [new PeriodicExportingMetricReader({ exporter: await metricExporter(metricsProtocol), exportIntervalMillis: METRIC_EXPORT_INTERVAL_MS })] })
    : undefined;
  const tracer: Tracer = tracerProvider?.getTracer('idem', options.serviceVersion) ?? trace.getTracerProvider().getTracer('idem');
  const instruments = createRunInstruments(meterProvider?.getMeter('idem', options.serviceVersion) ?? createNoopMeter());

  const runs = new Set<OtelRunTrace>();
  const destinationOf = (url: string): Attributes | undefined => {
    for (const run of runs) {
      const destination = run.destinations.find((d) => url === d.url || url.startsWith(`${d.url}/`) || url.startsWith(`${d.url}?`));
      if (destination) return { ...run.metricAttributes, 'idem.destination': destination.name };
    }
    return undefined;
  };
  const stopRecordingRequests = meterProvider ? recordDestinationRequests(instruments.requestDuration, destinationOf) : () => undefined;

  /** Runs `record`; a telemetry mistake is a warning, never the run's failure. */
  const guarded = (record: () => void): void => {
    try {
      record();
    } catch (error) {
      log.warn({ err: error }, 'telemetry: not recorded');
    }
  };
  const noTrace: RunTrace = { sendsTo: () => undefined, lockAttempted: () => undefined, attemptStarted: () => undefined, countsRecorded: () => undefined, end: () => undefined };

  /** Starts a trace with this root (a run's or a worker's), every call guarded. */
  const startTrace = (root: () => TraceRoot): RunTrace => {
    let runTrace: OtelRunTrace | undefined;
    guarded(() => {
      runTrace = new OtelRunTrace(tracer, instruments, root());
      runs.add(runTrace);
    });
    if (!runTrace) return noTrace;
    const trace = runTrace;
    return {
      sendsTo: (destination) => guarded(() => trace.sendsTo(destination)),
      lockAttempted: (waitedMs, acquired) => guarded(() => trace.lockAttempted(waitedMs, acquired)),
      attemptStarted: (attempt) => guarded(() => trace.attemptStarted(attempt)),
      countsRecorded: (stage, counts) => guarded(() => trace.countsRecorded(stage, counts)),
      end: (ended) => {
        runs.delete(trace);
        guarded(() => trace.end(ended));
      },
    };
  };

  return {
    startRun: (run) => startTrace(() => runRoot(run)),
    startWork: (work) => startTrace(() => workRoot(work)),
    commandFailed({ pipeline, outcome, exitCode, error, command = 'run' }) {
      guarded(() => {
        const attributes = { 'idem.pipeline': pipeline, 'idem.outcome': outcome, 'process.exit.code': exitCode };
        const span = tracer.startSpan(`${command} ${pipeline}`, { root: true, attributes });
        span.recordException({ name: error.name, message: redactSecrets(error.message) });
        span.setStatus({ code: SpanStatusCode.ERROR, message: redactSecrets(error.message) });
        span.end();
        if (command === 'run') instruments.runs.add(1, attributes);
      });
    },
    async shutdown() {
      stopRecordingRequests();
      const flushed = await within(TELEMETRY_FLUSH_MS, Promise.all([tracerProvider?.shutdown(), meterProvider?.shutdown()]));
      if (!flushed) log.warn(`telemetry: not all exported within ${TELEMETRY_FLUSH_MS} ms (is the collector at OTEL_EXPORTER_OTLP_ENDPOINT up?); the rest is dropped`);
      diag.disable();
    },
  };
}
