import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Where a suite run keeps its SQLite template, and a `made-<dialect>` note (holding the server
 * URL) for each server it made a template on: test/global-setup.ts drops those at the run's end.
 */
export function templateDir(runId: string): string {
  return path.join(tmpdir(), `idem_tpl_${runId}`);
}

/** The name of a suite run's template database on a server. */
export function templateName(runId: string): string {
  return `idem_tpl_${runId}`;
}
