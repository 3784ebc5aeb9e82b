import { existsSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The SQL Server admin URL of the container this setup started (absent: none started). */
    mssqlTestUrl: string;
    /** Why no SQL Server container runs although a container runtime exists. */
    mssqlTestUnavailable: string;
  }
}

/** The SA password of the throwaway container (meets SQL Server's complexity policy). */
const SA_PASSWORD = 'Idem-Test-Passw0rd!';
const IMAGE = 'mcr.microsoft.com/mssql/server:2022-latest';

/**
 * Whether testcontainers could find a container runtime at all: the places its strategies look
 * (testcontainers 11: `~/.testcontainers.properties`, `DOCKER_HOST`, the rootful and rootless
 * Docker sockets, Windows named pipes). Checked first because loading testcontainers alone takes
 * ~0.5-0.8 s; where any of them exists, testcontainers' own probe decides.
 */
function mayHaveContainerRuntime(): boolean {
  if (process.platform === 'win32' || process.env.DOCKER_HOST) return true;
  if (Object.keys(process.env).some((name) => name.startsWith('TESTCONTAINERS_'))) return true;
  const home = homedir();
  const sockets = [
    path.join(home, '.testcontainers.properties'),
    '/var/run/docker.sock',
    ...(process.env.XDG_RUNTIME_DIR ? [path.join(process.env.XDG_RUNTIME_DIR, 'docker.sock')] : []),
    path.join(home, '.docker', 'run', 'docker.sock'),
    path.join(home, '.docker', 'desktop', 'docker.sock'),
    path.join('/run', 'user', String(userInfo().uid), 'docker.sock'),
  ];
  return sockets.some((file) => existsSync(file));
}

/**
 * Starts SQL Server for the suite where a container runtime exists, and hands its URL to the
 * test workers with `provide` (read by `inject('mssqlTestUrl')` in test/helpers/dialects.ts).
 * Nothing to do when `IDEM_TEST_MSSQL_URL` names a server already or `TEST_DIALECTS` leaves
 * mssql out. Without a runtime this costs a few `existsSync` calls (testcontainers is not even
 * loaded; where it is, its probe rejects in ~2 ms) and SQL Server runs show as skipped.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (process.env.IDEM_TEST_MSSQL_URL) return undefined;
  if (process.env.TEST_DIALECTS && !process.env.TEST_DIALECTS.split(',').includes('mssql')) return undefined;

  if (!mayHaveContainerRuntime()) return undefined;
  const { getContainerRuntimeClient } = await import('testcontainers');
  if (!(await getContainerRuntimeClient().then(() => true, () => false))) return undefined;

  try {
    const { MSSQLServerContainer } = await import('@testcontainers/mssqlserver');
    const container = await new MSSQLServerContainer(IMAGE).acceptLicense().withPassword(SA_PASSWORD).start();
    // The image's certificate is self-signed.
    project.provide(
      'mssqlTestUrl',
      `mssql://sa:${encodeURIComponent(SA_PASSWORD)}@${container.getHost()}:${container.getPort()}/master?trustServerCertificate=true`,
    );
    return async () => {
      await container.stop();
    };
  } catch (error) {
    project.provide('mssqlTestUnavailable', `the SQL Server container did not start: ${(error as Error).message}`);
    return undefined;
  }
}
