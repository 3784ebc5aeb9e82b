/**
 * What `definePipeline` throws for a definition it rejects: every problem it found, one line
 * each (`pipeline <field> <rule> (got <value>)`), as `problems`; the message joins them with
 * `; `. A TypeError, since it is thrown where the module is imported: `loadPipeline` turns it
 * into a usage error (exit 2) and `idem check` prints each problem on a line of its own.
 */
export class PipelineDefinitionError extends TypeError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join('; '));
    this.name = 'PipelineDefinitionError';
    this.problems = problems;
  }
}
