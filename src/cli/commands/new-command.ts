import { loadConfig } from '../../config/load-config.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { columnSource } from '../../scaffold/column-source.ts';
import { projectHasPackage } from '../../scaffold/project-has-package.ts';
import { scaffoldPipeline } from '../../scaffold/scaffold-pipeline.ts';
import { newPipelineKinds } from '../../source/source-kinds.ts';
import { commandIo } from '../../command-io/command-io.ts';

/** Flags of `idem new`: besides these, one sample flag per source kind that declares one (`csv`, `json`: see `newPipelineKinds`). */
export interface NewCommandOptions {
  readonly [sampleFlag: string]: string | number | undefined;
  readonly key?: string;
  readonly timeZone?: string;
  readonly nullValues?: string;
  readonly rows?: number;
  /** `--source NAME`: the `IDEM_SOURCES` entry a sample is read from (`--sql`'s database). */
  readonly source?: string;
}

/** `idem new NAME --csv FILE | --json URL_OR_FILE | …` (a flag per source kind): writes a pipeline from a sample and says what it inferred and what to run next. */
export async function newCommand(name: string, options: NewCommandOptions): Promise<Outcome> {
  const { projectDir, sources } = loadConfig();
  const result = await scaffoldPipeline({
    projectDir,
    name,
    samples: Object.fromEntries([...newPipelineKinds().keys()].map((flag) => [flag, options[flag] as string | undefined])),
    ...(options.source !== undefined ? { sourceName: String(options.source) } : {}),
    sources,
    ...(options.key !== undefined ? { key: options.key } : {}),
    ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}),
    ...(options.nullValues !== undefined ? { nullValues: options.nullValues.split(',') } : {}),
    ...(options.rows !== undefined ? { fixtureRows: options.rows } : {}),
  });
  const { plan } = result;
  // The loop of docs/writing-a-pipeline.md: run (twice: the second is a no-op), check, test, prove.
  const { env: source, runFlags: input, instead } = plan.source.next;
  const out: string[] = [
    `key: ${plan.key.join(', ')}${result.keyProposed ? ' (proposed: present and unique in every sample row; choose another with --key)' : ''}`,
    'columns:',
    ...plan.columns.map(([column, spec]) => `  ${column}: ${columnSource(spec)}${plan.fields[column] ? ` (from ${plan.fields[column]})` : ''}`),
    'wrote:',
    ...result.files.map((file) => `  ${file}`),
    'next:',
    '  idem migrate',
    `  ${source}idem run ${name} ${input}`,
    `  idem check ${name}`,
    // The test idem new wrote imports vitest, which is the project's to install, not idem's.
    ...(instead === undefined && !projectHasPackage(projectDir, 'vitest') ? ['  npm i -D vitest   # the test idem new wrote runs under vitest, which this project lacks'] : []),
    `  ${instead ?? `npx vitest run test/pipelines/${name}.test.ts`}`,
    `  ${source}idem prove ${name} ${input}`,
  ];
  commandIo().stdout.write(`${out.join('\n')}\n`);
  return 'completed';
}
