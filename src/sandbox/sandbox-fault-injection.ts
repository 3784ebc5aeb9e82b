import { errorBody, jsonAnswer, type SandboxAnswer } from './sandbox-answer.ts';
import type { SandboxFault } from './sandbox-fault.ts';
import type { SandboxPauses } from './sandbox-pauses.ts';
import type { SandboxRequest } from './sandbox-request.ts';

/**
 * What a scripted {@link SandboxFault} does to the request that took it, in steps around the
 * request's work (a POST's commit): `before` it, a `status` fault answers and a `reset` fault drops
 * the connection, so nothing is done; `delayMs` is the extra wait of a `late-commit` before the
 * work; `after` it, `reset-after-commit` drops the connection, `hang-after-commit` withholds the
 * answer and `status-after-commit` answers its status instead of the work's.
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

  /** How long the fault delays the work beyond the latency, in ms: a `late-commit`'s `ms`, else 0. */
  delayMs(fault: SandboxFault | undefined): number {
    return fault?.kind === 'late-commit' ? fault.ms : 0;
  }

  /**
   * Applies the fault once the work is done (a hang with `ms` waits that long).
   * @returns the answer to send (`answer`, or a `status-after-commit`'s status instead), or
   *   undefined when the request must get no answer: its connection was reset, or it hangs until `close()`.
   */
  async after(fault: SandboxFault | undefined, request: SandboxRequest, answer: SandboxAnswer): Promise<SandboxAnswer | undefined> {
    if (fault?.kind === 'reset-after-commit') {
      request.resetConnection();
      return undefined;
    }
    if (fault?.kind === 'status-after-commit') return jsonAnswer(fault.status, fault.body ?? errorBody(fault.status));
    if (fault?.kind !== 'hang-after-commit') return answer;
    if (fault.ms === undefined) return undefined;
    await this.#pauses.pause(fault.ms);
    return answer;
  }
}
