import type { ResolvedConfig } from '../config/resolved-config.ts';
import { osUser } from '../runs/attempt-trigger.ts';

/** `--triggered-by`, else `IDEM_TRIGGERED_BY` (a scheduler's identity), else the OS user running the command. */
export function triggeredBy(flag: string | undefined, config: Pick<ResolvedConfig, 'triggeredBy'>): string {
  return flag ?? config.triggeredBy ?? osUser() ?? 'unknown';
}
