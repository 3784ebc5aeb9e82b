import { errorBody, jsonAnswer, type SandboxAnswer } from './sandbox-answer.ts';
import type { SandboxFault } from './sandbox-fault.ts';
import type { SandboxPauses } from './sandbox-pauses.ts';
import type { SandboxRequest } from './sandbox-request.ts';

/**
 * What a scripted {@link SandboxFault} does to the request that took it, in two steps around the
 * request's work (a POST's commit): `before` it, a `status` fault answers and a `reset` fault drops
 * the connection, so nothing is done; `after` it, `reset-after-commit` drops the connection and
 * `hang-after-commit` withholds the answer.
 */
export class SandboxFaultInjection {
  readonly #pauses: SandboxPauses;

  constructor(pauses: SandboxPauses) {
    this.#pauses = pauses;
  }

  /** The answer the fault gives instead of the work, 'reset' to drop the connection, undefined to do the work. */
  before(fault: SandboxFault | undefined): SandboxAnswer | 'reset' | undefined {
    if (fault?.kind === 'status') {
      const headers = fault.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(fault.retryAfterSeconds) };
      return jsonAnswer(fault.status, fault.body ?? errorBody(fault.status), headers);
    }
    return fault?.kind === 'reset' ? 'reset' : undefined;
  }

  /**
   * Applies the fault once the work is done (a hang with `ms` waits that long).
   * @returns false when the request must get no answer: its connection was reset, or it hangs until `close()`.
   */
  async after(fault: SandboxFault | undefined, request: SandboxRequest): Promise<boolean> {
    if (fault?.kind === 'reset-after-commit') {
      request.resetConnection();
      return false;
    }
    if (fault?.kind !== 'hang-after-commit') return true;
    if (fault.ms === undefined) return false;
    await this.#pauses.pause(fault.ms);
    return true;
  }
}
