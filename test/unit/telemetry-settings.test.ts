import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { telemetrySettings } from '../../src/config/telemetry-settings.ts';

const ENDPOINT = 'http://127.0.0.1:4318';

describe('telemetry settings from the standard OTEL_* variables', () => {
  it('is off, and nothing is loaded, unless an OTLP endpoint is set', () => {
    expect(telemetrySettings({})).toBeUndefined();
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
    expect(loadConfig({}, '/tmp').telemetry).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }, '/tmp').telemetry).toEqual({ traces: 'http/protobuf', metrics: 'http/protobuf' });
  });

  it('exports both signals over http/protobuf by default, and honours the protocol per signal', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT })).toEqual({ traces: 'http/protobuf', metrics: 'http/protobuf' });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({ traces: 'http/json', metrics: 'http/json' });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' })).toEqual({ traces: 'http/json', metrics: 'grpc' });
    // An unknown protocol falls back to the default, as the SDKs do.
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'carrier-pigeon' })).toEqual({ traces: 'http/protobuf', metrics: 'http/protobuf' });
  });

  it('exports only the signals that have an endpoint and an otlp exporter', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` })).toEqual({ traces: 'http/protobuf', metrics: undefined });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${ENDPOINT}/v1/metrics` })).toEqual({ traces: undefined, metrics: 'http/protobuf' });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_METRICS_EXPORTER: 'none' })).toEqual({ traces: 'http/protobuf', metrics: undefined });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'console,otlp' })).toEqual({ traces: 'http/protobuf', metrics: 'http/protobuf' });
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' })).toBeUndefined();
  });

  it('is off with OTEL_SDK_DISABLED=true, whatever else is set', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'false' })).toBeDefined();
  });
});
