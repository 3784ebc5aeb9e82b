import type { SandboxFault, SandboxFaultRoute } from './sandbox-fault.ts';

/** The pending scripted faults, each with how many more requests it applies to. */
export class SandboxFaultQueue {
  #pending: { fault: SandboxFault; remaining: number }[] = [];

  /** Appends faults after those already queued; a `count` below 1 queues nothing. */
  add(faults: readonly SandboxFault[]): void {
    for (const fault of faults) {
      const remaining = fault.count ?? 1;
      if (remaining >= 1) this.#pending.push({ fault, remaining });
    }
  }

  /** Drops every pending fault. */
  clear(): void {
    this.#pending = [];
  }

  /** The queue as faults whose `count` is what is left of it. */
  pending(): SandboxFault[] {
    return this.#pending.map(({ fault, remaining }) => ({ ...fault, count: remaining }));
  }

  /**
   * Consumes one use of the first fault for `route` (a fault without a route is for
   * `POST /invoices`) whose `reference`, if it has one, is this request's, if any.
   */
  take(route: SandboxFaultRoute, reference: string | undefined): SandboxFault | undefined {
    const index = this.#pending.findIndex(
      ({ fault }) => (fault.route ?? 'POST /invoices') === route && (fault.reference === undefined || fault.reference === reference),
    );
    if (index === -1) return undefined;
    const entry = this.#pending[index];
    entry.remaining -= 1;
    if (entry.remaining === 0) this.#pending.splice(index, 1);
    return entry.fault;
  }
}
