import type { Dispatcher } from 'undici';

/**
 * `agent`, calling `check` for each request at the last moment the request can still be
 * withheld: undici's `onRequestStart`, which its HTTP/1.1 client calls synchronously right
 * before it writes the request line to the socket (after any wait for a free connection, a
 * connect, a queue). When `check` throws, the request is aborted with what it threw: nothing of
 * it is written, and the request rejects with that error. A process that proves its right to
 * send here leaves no await, and no wait of its own, between the proof and the bytes leaving.
 * Composed per request (an undici interceptor, see `Dispatcher.compose`): cheap, and it shares
 * `agent`'s connections.
 */
export function checkBeforeWrite(agent: Dispatcher, check: () => void): Dispatcher {
  return agent.compose((dispatch) => (options, handler) =>
    dispatch(options, {
      onRequestStart(controller, context) {
        try {
          check();
        } catch (error) {
          controller.abort(error as Error);
          return;
        }
        handler.onRequestStart?.(controller, context);
      },
      onRequestUpgrade: (...args) => handler.onRequestUpgrade?.(...args),
      onResponseStart: (...args) => handler.onResponseStart?.(...args),
      onResponseData: (...args) => handler.onResponseData?.(...args),
      onResponseEnd: (...args) => handler.onResponseEnd?.(...args),
      onResponseError: (...args) => handler.onResponseError?.(...args),
    }),
  );
}
