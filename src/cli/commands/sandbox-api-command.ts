import type { Outcome } from '../../outcome/outcome.ts';
import { startSandboxApi } from '../../sandbox/start-sandbox-api.ts';
import { commandIo } from '../../command-io/command-io.ts';

/** `idem sandbox-api`: serves the sandbox accounting API until SIGINT or SIGTERM. */
export async function sandboxApiCommand(options: { port: number; host: string; latencyMs: number; idempotencyKeys: boolean }): Promise<Outcome> {
  const api = await startSandboxApi(options);
  commandIo().stdout.write(`sandbox accounting API listening on ${api.url}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await api.close();
  return 'completed';
}
