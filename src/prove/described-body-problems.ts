import type { DestinationRequest } from '../destination/destination-definition.ts';
import type { RequestBodyDescription } from '../project/load-stand-in-handlers.ts';

/**
 * What the stand-in's description of a destination's bodies (`bodies` of
 * `stand-ins/<pipeline>.ts`) says of one request's body, as JSON sends it, one line per issue:
 * `body.hp Invalid input: expected number, received undefined (stand-ins/cars.ts, update)`.
 * None when the description has no schema for this kind of request.
 * @param kind `create` for a row without a remote reference, `update` for one with.
 */
export function describedBodyProblems(description: RequestBodyDescription | undefined, kind: 'create' | 'update', request: DestinationRequest, module: string): string[] {
  const schema = description?.[kind];
  if (!schema) return [];
  const sent = JSON.parse(JSON.stringify(request.body ?? null)) as unknown;
  const checked = schema.safeParse(sent);
  if (checked.success) return [];
  return checked.error.issues.map((issue) => `${['body', ...issue.path.map(String)].join('.')} ${issue.message} (${module}, ${kind})`);
}
