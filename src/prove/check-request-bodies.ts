import type { DestinationRequest, PostedRow } from '../destination/destination-definition.ts';
import { undefinedBodyFields } from '../destination/undefined-body-fields.ts';
import { selectJobLedgerItems } from '../ledger/select-job-ledger-items.ts';
import { readPostedRows } from '../post/read-posted-rows.ts';
import { validateInvoiceBody, validatePatch } from '../sandbox/validate-invoice-body.ts';
import { standInModulePath } from '../project/load-stand-in-handlers.ts';
import { describedBodyProblems } from './described-body-problems.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveCheckOutcome } from './prove-check.ts';

/** Problems listed in a failed check's line; the count is always whole. */
const LISTED_PROBLEMS = 3;

/** A remote reference for the update request of a row never updated: only its shape is looked at. */
const STAND_IN_REFERENCE = 'idem-prove-ref';

/** What idem's sandbox accounting API says of a request's body (its description of a valid one). */
function sandboxProblems(request: DestinationRequest): string[] {
  const sent = JSON.parse(JSON.stringify(request.body ?? null)) as unknown;
  const checked = request.method === 'PATCH' ? validatePatch(sent) : validateInvoiceBody(sent);
  return checked.ok ? [] : checked.details.map((d) => `body.${d.field} ${d.message} (idem's sandbox, ${request.method})`);
}

/**
 * `idem prove`'s body check, on the clean run's case: for every record it posted, each
 * destination's `request()` for a create and for an update of the record (the row with a remote
 * reference: what a changed record sends), looked at before JSON drops anything. A field that is
 * `undefined` fails it; so does a body the stand-in's description rejects, where it has one (idem's
 * sandbox: `validateInvoiceBody`, `validatePatch` for a PATCH; the `bodies` schemas of
 * `stand-ins/<pipeline>.ts`, see `describedBodyProblems`). A `request()` that throws fails it too.
 */
export async function checkRequestBodies(c: ProveCase): Promise<ProveCheckOutcome> {
  const problems: string[] = [];
  let bodies = 0;
  await c.withDatabase(async (db) => {
    const items = await selectJobLedgerItems(db, c.pipeline.name);
    const rows = await readPostedRows(db, c.pipeline, items);
    for (const item of items) {
      const row = rows.get(item.id);
      const destination = c.pipeline.destinations.find((d) => d.name === item.destination);
      if (!row || !destination) continue;
      const sandboxed = c.standIns.sandboxed.includes(destination.name);
      const { remoteReference, ...created } = row;
      const variants: ['create' | 'update', PostedRow][] = [['create', created], ['update', { ...created, remoteReference: remoteReference ?? STAND_IN_REFERENCE }]];
      for (const [kind, variant] of variants) {
        bodies += 1;
        const where = `${item.sourceReference} (${destination.name}, ${kind})`;
        let request: DestinationRequest;
        try {
          request = destination.request(variant);
        } catch (error) {
          problems.push(`${where}: request() threw ${(error as Error).message}`);
          continue;
        }
        for (const path of undefinedBodyFields(request.body)) problems.push(`${where}: ${path} is undefined`);
        if (sandboxed) for (const problem of sandboxProblems(request)) problems.push(`${where}: ${problem}`);
        for (const problem of describedBodyProblems(c.standIns.bodies[destination.name], kind, request, standInModulePath(c.pipeline.name))) problems.push(`${where}: ${problem}`);
      }
    }
  });
  const described = Object.keys(c.standIns.bodies).length > 0 ? `, valid for ${standInModulePath(c.pipeline.name)}` : '';
  if (problems.length === 0) return { result: 'pass', counts: `bodies ${bodies} (create and update), no undefined field${c.standIns.sandboxed.length ? ", valid for idem's sandbox" : ''}${described}` };
  const shown = problems.slice(0, LISTED_PROBLEMS).join('; ');
  return { result: 'fail', counts: `${problems.length} problem(s) in ${bodies} bodies: ${shown}${problems.length > LISTED_PROBLEMS ? '; …' : ''}` };
}
