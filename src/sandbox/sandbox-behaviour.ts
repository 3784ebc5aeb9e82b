import type { SandboxSettings } from './sandbox-fault.ts';
import { SandboxRateLimit } from './sandbox-rate-limit.ts';

/** The current {@link SandboxSettings} of a running sandbox, every one set. */
export class SandboxBehaviour {
  /** Delay before answering each API request, in ms. @defaultValue 0 */
  latencyMs = 0;
  /** Honour `Idempotency-Key`. @defaultValue true */
  idempotencyKeys = true;
  readonly rateLimit = new SandboxRateLimit();

  /** Changes the given settings only; the rate limit's bucket starts full again. */
  configure(next: SandboxSettings): void {
    this.latencyMs = next.latencyMs ?? this.latencyMs;
    this.idempotencyKeys = next.idempotencyKeys ?? this.idempotencyKeys;
    this.rateLimit.perSecond = next.maxRequestsPerSecond ?? this.rateLimit.perSecond;
  }

  /** The settings as `POST /_admin/faults` answers them. */
  settings(): Required<SandboxSettings> {
    return { latencyMs: this.latencyMs, idempotencyKeys: this.idempotencyKeys, maxRequestsPerSecond: this.rateLimit.perSecond };
  }
}
