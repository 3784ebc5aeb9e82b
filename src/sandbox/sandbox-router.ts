import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { jsonAnswer, sendAnswer } from './sandbox-answer.ts';
import type { SandboxAdminApi } from './sandbox-admin-api.ts';
import type { SandboxApiRoutes } from './sandbox-api-routes.ts';
import type { SandboxPauses } from './sandbox-pauses.ts';
import { readSandboxRequest } from './sandbox-request.ts';

/**
 * The sandbox's request listener: `GET /health`, the admin routes under `/_admin/`, and every
 * other path to the API routes. An unexpected error answers 500 `{ error: "internal_error" }`,
 * except while the server closes (a pause stopped by `close()` just means its sockets are going).
 */
export function sandboxRouter(routes: { api: SandboxApiRoutes; admin: SandboxAdminApi; pauses: SandboxPauses }): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    readSandboxRequest(req)
      .then((request) => {
        const path = request.url.pathname;
        if (path === '/health') return sendAnswer(res, jsonAnswer(200, { status: 'ok' }));
        if (path.startsWith('/_admin/')) return sendAnswer(res, routes.admin.answer(request));
        return routes.api.handle(request, res);
      })
      .catch((error: unknown) => {
        if (!routes.pauses.stopped) sendAnswer(res, jsonAnswer(500, { error: 'internal_error', message: String(error) }));
      });
  };
}
