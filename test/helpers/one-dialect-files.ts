/**
 * The test files that run on one dialect only (`describeOneDialect`), each with the reason one is
 * enough. Their subject is not the database: what they prove is decided above the dialect
 * adapter, in code that asks the adapter through one interface and writes through knex. The SQL
 * they reach (staging, upsert, the ledger's claims and marks, the app lock, job_runs) is proven
 * on every dialect by the files that keep `describeEachDialect`: kill-matrix, worker-kill,
 * update-kill, post-workers, paused-process, overlap, app-lock, lock-conflict, ledger-enqueue,
 * dialect-values, canonical-values, clock, duplicate-keys, retention-and-quarantine and the rest.
 * test/unit/one-dialect-files.test.ts holds this list to the files.
 */
export const ONE_DIALECT_FILES: Readonly<Record<string, string>> = {
  'test/faults/deletion-kill.test.ts': "what check-before-create and mark-before-send do with a DELETE in flight is decided in src/post/; the deletions' marks, their enqueue and claims run on every dialect in the same file's first half",
  'test/faults/update-kill.test.ts': "what each strategy does with a PUT in flight or a gateway's 504 is decided in src/post/; the ledger versions written before a PUT, and their claims, are killed on every dialect in the same file's first half",
  'test/integration/repost.test.ts': "what mark-before-send and check-before-create do with a repost's PUT in flight is decided in src/post/; the repost's enqueue and its kill are proven on every dialect in the same file's first half",
  'test/faults/derived-kill.test.ts': 'a kill before the upsert writes nothing derived, and one after its commit leaves the rebuilt rows as committed: one dialect shows it; the kills in the upsert\'s transaction, where the derived tables are rebuilt, run on every dialect',
  'test/faults/destination-faults.test.ts': "HTTP faults of the destination (resets, 503 storms, a 400): what each strategy does with an answer is decided in src/post/, above the adapter",
  'test/faults/outcome-agrees-with-job-runs.test.ts': 'which outcome a finished post stage has (job_runs, the exit code, idem status) is decided from the ledger counts in src/post/; the job_runs write is one conditional update through knex',
  'test/faults/strategy-fine-print.test.ts': "each post strategy's answer to a 504 after apply, a late commit and A → B → A: src/post/ decides; the ledger's SQL is proven per dialect by worker-kill, update-kill and ledger-enqueue",
  'test/faults/polite-stop.test.ts': "its second half (SIGINT, a request in flight, the grace's end) is the process's signal handling and the post stage's claim loop in src/post/; its first half stops at every stage boundary on every dialect",
  'test/integration/exit-codes.test.ts': 'how an HTTP answer maps to an exit code (src/outcome/, src/post/): no SQL decides it',
  'test/integration/http-json-source.test.ts': 'the HTTP JSON source (paging, retries, quarantine of bad items): read before anything is staged',
  'test/integration/incremental-source.test.ts': "the incremental source's mark: read from job_runs through knex, like any completed run",
  'test/integration/operating.test.ts': 'backfill, catch-up, status and heartbeats orchestrate runs; the lock and job_runs they rely on are proven per dialect by app-lock, lock-conflict, overlap and status-dead-runs',
  'test/integration/pipeline-definitions.test.ts': "a pipeline's own mistakes are caught in JavaScript as the module loads or a record is built, before SQL",
  'test/integration/post-stage.test.ts': 'retries, Retry-After, a 400, a hang after commit and kills while posting: HTTP handling in src/post/; kills mid-post are proven per dialect by kill-matrix, worker-kill and update-kill',
  'test/integration/reconcile-lookup.test.ts': 'which look-up --force-reconcile asks is read from the destination definition in src/post/; the ledger rows it reads come through knex',
  'test/integration/source-file-changed.test.ts': 'a source file that changes while it is read is found by the CSV reader (fstat, stat, its hash), before anything is upserted',
  'test/integration/read-threads-cli.test.ts': 'which thread reads a CSV file is decided in src/source/, before staging; the staging, upsert and job_runs writes it compares are the same SQL on either',
  'test/integration/unsorted-source.test.ts': 'grouping and external sorting of an unsorted CSV export happen in the source, before staging',
};
