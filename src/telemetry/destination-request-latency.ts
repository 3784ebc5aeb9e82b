import diagnosticsChannel from 'node:diagnostics_channel';
import type { Attributes, Histogram } from '@opentelemetry/api';

/** What undici publishes about a request (https://undici.nodejs.org/#/docs/api/DiagnosticsChannel). */
interface UndiciRequest {
  readonly origin?: string | URL;
  readonly path?: string;
  readonly method?: string;
}

/** A request's destination and the metric attributes it is recorded with; undefined: not a destination's. */
export type DestinationOf = (url: string) => Attributes | undefined;

/**
 * Records the latency of every HTTP request to a destination (`idem.destination.request.duration`,
 * seconds from the request's creation to its response headers, or to its error) from undici's
 * diagnostics channels, where every request idem sends is published: the post stage needs no
 * hook of its own, and with telemetry off nothing subscribes. `destinationOf` tells a destination's
 * request by its URL; other requests (a source's pages, heartbeat pings) are not recorded.
 * @returns a function that stops recording.
 */
export function recordDestinationRequests(histogram: Histogram, destinationOf: DestinationOf): () => void {
  const started = new WeakMap<object, { at: number; attributes: Attributes }>();
  const onCreate = (message: unknown): void => {
    const request = (message as { request: UndiciRequest }).request;
    const origin = typeof request.origin === 'string' ? request.origin : request.origin?.origin;
    if (origin === undefined) return;
    const attributes = destinationOf(`${origin.replace(/\/$/, '')}${request.path ?? ''}`);
    if (attributes) started.set(request, { at: performance.now(), attributes: { ...attributes, 'http.request.method': request.method ?? 'GET' } });
  };
  const end = (request: object, extra: Attributes): void => {
    const start = started.get(request);
    if (!start) return;
    started.delete(request);
    histogram.record((performance.now() - start.at) / 1000, { ...start.attributes, ...extra });
  };
  const onHeaders = (message: unknown): void => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    end(request, { 'http.response.status_code': response.statusCode });
  };
  const onError = (message: unknown): void => {
    const { request, error } = message as { request: object; error: Error & { code?: string } };
    end(request, { 'error.type': error.code ?? error.name });
  };
  const channels = [
    ['undici:request:create', onCreate],
    ['undici:request:headers', onHeaders],
    ['undici:request:error', onError],
  ] as const;
  // Node rethrows a subscriber's error as an uncaught exception: a measurement must never throw.
  const subscribed = channels.map(([name, listener]) => {
    const safe = (message: unknown): void => {
      try {
        listener(message);
      } catch {
        // Not recorded; the request goes on.
      }
    };
    diagnosticsChannel.subscribe(name, safe);
    return [name, safe] as const;
  });
  return () => {
    for (const [name, listener] of subscribed) diagnosticsChannel.unsubscribe(name, listener);
  };
}
