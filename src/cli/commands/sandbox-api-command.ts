import { startSandboxApi } from '../../sandbox/start-sandbox-api.ts';

/** `idem sandbox-api`: serves the sandbox accounting API until SIGINT or SIGTERM. */
export async function sandboxApiCommand(options: { port: number; host: string; latencyMs: number; idempotencyKeys: boolean }): Promise<number> {
  const api = await startSandboxApi(options);
  process.stdout.write(`sandbox accounting API listening on ${api.url}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await api.close();
  return 0;
}
