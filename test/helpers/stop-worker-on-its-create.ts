import type { FaultWorld } from './open-fault-world.ts';
import type { CliProcess } from './run-cli.ts';

/**
 * SIGSTOPs `worker` (an `idem work` child) as the destination receives one of its creates, before
 * the destination answers it, so that create's item is `sending` under the worker's claim and
 * stays so: its answer never reaches the worker. On every create (once the destination holds
 * `after` records) the worker is stopped at once, then the ledger tells whose create it was; a
 * create of the run's lets the worker go on, until the next one. (Reading the ledger after a
 * stop instead races the worker's last outcome write, which the database may still apply.)
 * @returns the stopped create's reference.
 */
export function stopWorkerOnItsCreate(world: FaultWorld, worker: CliProcess, after = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    let deciding = false;
    world.onRequest = (request) => {
      if (request.method !== 'POST' || request.reference === null || deciding) return;
      if (world.sandbox.state.records().length < after) return;
      deciding = true;
      worker.child.kill('SIGSTOP');
      const reference = request.reference;
      world.db.knex('post_ledger').where({ source_reference: reference, status: 'sending' }).where('claimed_by', 'like', 'worker %').first().then((item) => {
        if (item) {
          world.onRequest = undefined;
          resolve(reference);
          return;
        }
        worker.child.kill('SIGCONT');
        deciding = false;
      }, reject);
    };
  });
}
