import { startIdemChild } from '../child-process/start-idem-child.ts';
import { EXIT_CODES } from '../outcome/outcome.ts';
import { SEND_BATCH_MAX } from '../post/proved-send-batches.ts';
import { appLockName } from '../runs/app-lock-name.ts';
import { describeChildEnd } from './describe-child-end.ts';
import { endAsAnOperatorWould } from './end-as-an-operator-would.ts';
import type { ProveCheckOutcome } from './prove-check.ts';
import type { ProveCase } from './prove-case.ts';
import type { ProveReference } from './prove-reference.ts';

/**
 * The database takes the run's app lock away as its write number `at` reaches a destination: the
 * server ends the lock's session (an administrator's kill, a failover), or on SQLite the lease
 * row goes (see `DialectAdapter.endAppLockHolder`). The run proves its lock before every batch of
 * requests, so at most `SEND_BATCH_MAX` more writes may reach the destinations; then it stops,
 * exit 75 (a lost session: retry later) or 1 (a lease taken), and writes nothing more. A rerun
 * completes the run key with every record once.
 */
export async function checkKilledLockSession(c: ProveCase, reference: ProveReference, at: number): Promise<ProveCheckOutcome> {
  const run = startIdemChild(c.runArgs, c.env());
  let writes = 0;
  let afterLoss: number | undefined;
  const lost = new Promise<boolean | Error>((resolve) => {
    c.standIns.onPost = () => {
      writes += 1;
      if (afterLoss !== undefined) afterLoss += 1;
      if (writes !== at) return;
      c.withDatabase((db) => db.adapter.endAppLockHolder(db.knex, appLockName(c.pipeline.name))).then((ended) => {
        afterLoss = 0;
        resolve(ended);
      }, resolve);
    };
    void run.done.then(() => resolve(new Error(`the run ended after ${writes} writes, before write ${at}`)));
  });
  const ended = await lost;
  const first = await run.done;
  c.standIns.onPost = undefined;
  if (ended !== true) return { result: 'fail', counts: ended instanceof Error ? ended.message : 'no session held the app lock' };
  const said = [`${afterLoss ?? 0} write(s) after the loss (at most ${SEND_BATCH_MAX}), exit ${first.code ?? first.signal}`];
  if ((afterLoss ?? 0) > SEND_BATCH_MAX) return { result: 'fail', counts: `${said[0]}: the run went on sending without its lock` };
  if (first.code !== EXIT_CODES.retryLater && first.code !== EXIT_CODES.failed) return { result: 'fail', counts: `the run ${describeChildEnd(first)} after its lock was taken away` };
  await c.waitForLockFree();
  const rerun = await startIdemChild(c.runArgs, c.env()).done;
  return endAsAnOperatorWould(c, reference, rerun, 2, said);
}
