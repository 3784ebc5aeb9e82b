import type { PipelineDefinition } from '../pipeline/pipeline-definition.ts';
import type { PostCounts } from './post-counts.ts';
import { postDestinationPass } from './post-destination-pass.ts';
import type { PostPass, PostStageContext } from './post-stage-context.ts';

/**
 * One pass of a process (the run, or an `idem work` worker) over a run's post stage: one
 * destination after another (see `postDestinationPass`), each until nothing is left to claim.
 * Every outcome releases its item's claim.
 *
 * Items another process holds under a live claim are not waited for here: see `finishPostedRun`.
 * A polite stop (`ctx.stop`) ends the pass after the destination it is at.
 * @returns the pass's counts, one per destination, in the pipeline's order (fewer when stopped).
 * @throws whatever `worker.assertMayPost` throws (the run: LockLostError), and database errors.
 */
export async function postStage(ctx: PostStageContext, pipeline: PipelineDefinition, run: PostPass): Promise<PostCounts[]> {
  const results: PostCounts[] = [];
  for (const definition of pipeline.destinations) {
    if (ctx.stop?.aborted) break;
    results.push(await postDestinationPass(ctx, pipeline, definition, run));
  }
  return results;
}
