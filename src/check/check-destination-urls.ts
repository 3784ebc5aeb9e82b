import { resolveDestination } from '../post/resolve-destination.ts';
import type { PipelineCheck } from './pipeline-check.ts';

/** Each destination has a URL in `IDEM_DESTINATIONS` (and a lookup where its strategy needs one). */
export const checkDestinationUrls: PipelineCheck = {
  name: 'destination URLs',
  check(pipeline, { config }) {
    const problems: string[] = [];
    for (const destination of pipeline.destinations) {
      try {
        resolveDestination(config, destination);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    return problems;
  },
};
