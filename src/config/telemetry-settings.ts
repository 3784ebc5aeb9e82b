/** An OTLP protocol as the OpenTelemetry specification names it (`OTEL_EXPORTER_OTLP_PROTOCOL`). */
export type OtlpProtocol = 'http/protobuf' | 'http/json' | 'grpc';

/**
 * Which OpenTelemetry signals a command exports, and over which OTLP protocol. The exporters read
 * the rest of the standard variables themselves (endpoints, `OTEL_EXPORTER_OTLP_HEADERS`,
 * `_TIMEOUT`, `_COMPRESSION`, certificates; the resource: `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`), as every OpenTelemetry SDK does.
 */
export interface TelemetrySettings {
  /** Traces' protocol; undefined: no traces. */
  readonly traces: OtlpProtocol | undefined;
  /** Metrics' protocol; undefined: no metrics. */
  readonly metrics: OtlpProtocol | undefined;
}

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json', 'grpc'];

/**
 * One signal's protocol, by the specification's rules: exported when it has an endpoint
 * (`OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT`) and
 * `OTEL_<SIGNAL>_EXPORTER` is unset or names `otlp`; the protocol is
 * `OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`
 * (an unknown value too: the SDKs' own fallback).
 */
function signalProtocol(env: NodeJS.ProcessEnv, signal: 'TRACES' | 'METRICS'): OtlpProtocol | undefined {
  const endpoint = env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`] || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint?.trim()) return undefined;
  const exporters = env[`OTEL_${signal}_EXPORTER`]?.trim();
  if (exporters && !exporters.split(',').some((name) => name.trim() === 'otlp')) return undefined;
  const protocol = (env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim();
  return (PROTOCOLS.includes(protocol) ? protocol : 'http/protobuf') as OtlpProtocol;
}

/**
 * The telemetry a command exports, from the standard `OTEL_*` variables
 * (https://opentelemetry.io/docs/specs/otel/protocol/exporter/); undefined (the default) when
 * neither traces nor metrics have an endpoint, or `OTEL_SDK_DISABLED` is `true`: then the
 * OpenTelemetry SDK is never loaded.
 */
export function telemetrySettings(env: NodeJS.ProcessEnv): TelemetrySettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const traces = signalProtocol(env, 'TRACES');
  const metrics = signalProtocol(env, 'METRICS');
  return traces || metrics ? { traces, metrics } : undefined;
}
