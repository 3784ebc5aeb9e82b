import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { templateDir, templateName } from './helpers/template-database-names.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The SQL Server admin URL of the container this setup started (absent: none started). */
    mssqlTestUrl: string;
    /** Why no SQL Server container runs although a container runtime exists. */
    mssqlTestUnavailable: string;
    /** This suite run's id: names the template databases test/helpers/migrated-test-database.ts makes. */
    testRunId: string;
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
 * Gives the run an id (`inject('testRunId')`), starts SQL Server where it can (see
 * {@link startSqlServer}), and at the end drops the template databases the run made.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runId = randomBytes(4).toString('hex');
  project.provide('testRunId', runId);
  const stopSqlServer = await startSqlServer(project);
  return async () => {
    await dropTemplates(runId);
    await stopSqlServer?.();
  };
}

/** Drops the template databases the run's workers made (each left a `made-<dialect>` note). */
async function dropTemplates(runId: string): Promise<void> {
  const dir = templateDir(runId);
  if (!existsSync(dir)) return;
  const { default: knexFactory } = await import('knex');
  const { createDialectAdapter } = await import('../src/dialect/create-dialect-adapter.ts');
  for (const note of readdirSync(dir).filter((file) => file.startsWith('made-'))) {
    const dialect = note.slice('made-'.length);
    const serverUrl = readFileSync(path.join(dir, note), 'utf8');
    if (!serverUrl) continue;
    const adapter = await createDialectAdapter(serverUrl, process.cwd());
    const knex = knexFactory(adapter.knexConfig());
    try {
      await knex.raw(adapter.serverDatabaseSql(templateName(runId))!.drop);
    } catch (error) {
      console.warn(`could not drop the ${dialect} template database ${templateName(runId)}: ${(error as Error).message}`);
    } finally {
      await knex.destroy();
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Starts SQL Server for the suite where a container runtime exists, and hands its URL to the
 * test workers with `provide` (read by `inject('mssqlTestUrl')` in test/helpers/dialects.ts).
 * Nothing to do when `IDEM_TEST_MSSQL_URL` names a server already or `TEST_DIALECTS` leaves
 * mssql out. Without a runtime this costs a few `existsSync` calls (testcontainers is not even
 * loaded; where it is, its probe rejects in ~2 ms) and SQL Server runs show as skipped.
 */
async function startSqlServer(project: TestProject): Promise<(() => Promise<void>) | undefined> {
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
