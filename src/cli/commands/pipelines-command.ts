import { loadConfig } from '../../config/load-config.ts';
import type { Outcome } from '../../outcome/outcome.ts';
import { listPipelineNames, loadPipeline } from '../../pipeline/load-pipeline.ts';
import { formatTable } from '../../text/format-table.ts';
import { commandIo } from '../../command-io/command-io.ts';

/** `idem pipelines`: the pipeline definitions found in `pipelines/`. */
export async function pipelinesCommand(): Promise<Outcome> {
  const { projectDir } = loadConfig();
  const rows: string[][] = [];
  for (const name of listPipelineNames(projectDir)) {
    const pipeline = await loadPipeline(projectDir, name);
    rows.push([name, pipeline.timeZone, pipeline.destinations.map((d) => `${d.name} (${d.strategy})`).join(', ') || '-', pipeline.description]);
  }
  commandIo().stdout.write(formatTable(['pipeline', 'time zone', 'destinations', 'description'], rows));
  return 'completed';
}
