import { createReadStream } from 'node:fs';
import { parse, CsvError } from 'csv-parse';
import type { ZodType } from 'zod';
import { SourceError } from '../errors/source-error.ts';
import type { QuarantinedRow } from '../quarantine/quarantined-row.ts';
import type { SourceRow } from './source-row.ts';

/** What {@link readCsvRows} needs from a `CsvSource`. */
export interface CsvReadSpec<Row> {
  readonly header: readonly string[];
  readonly row: ZodType<Row>;
}

/**
 * Streams a CSV file through csv-parse and yields validated rows with their starting line.
 * A row with the wrong field count or a value the schema rejects goes to `quarantine`, naming
 * the line, the field and the rule. Memory stays flat: one record at a time.
 *
 * @throws SourceError when the file cannot be read, its header differs, or csv-parse cannot
 *   parse it at all (for example an unclosed quote), naming the file and line.
 */
export async function* readCsvRows<Row>(
  file: string,
  spec: CsvReadSpec<Row>,
  quarantine: (row: QuarantinedRow) => Promise<void>,
): AsyncGenerator<SourceRow<Row>> {
  const parser = createReadStream(file).pipe(
    parse({ bom: true, skip_empty_lines: true, relax_column_count: true, info: true, raw: true }),
  );
  let header = true;
  try {
    for await (const { record, info, raw } of parser as AsyncIterable<{ record: string[]; info: { lines: number; bytes: number }; raw: string }>) {
      // info.lines is where the record ends; a quoted field may span lines.
      const rawText = raw.replace(/^[\r\n]+|[\r\n]+$/g, '');
      const line = info.lines - (rawText.match(/\n/g)?.length ?? 0);
      if (header) {
        header = false;
        if (record.join(',') !== spec.header.join(',')) {
          throw new SourceError(file, line, `header must be ${spec.header.join(',')} (got ${record.join(',')})`);
        }
        continue;
      }
      if (record.length !== spec.header.length) {
        await quarantine({ source: file, line, reason: `expected ${spec.header.length} fields, found ${record.length}`, raw: rawText });
        continue;
      }
      const fields: Record<string, string> = {};
      spec.header.forEach((name, i) => {
        fields[name] = record[i]!;
      });
      const parsed = spec.row.safeParse(fields);
      if (parsed.success) {
        yield { line, value: parsed.data, bytes: info.bytes };
      } else {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.join('.');
        await quarantine({ source: file, line, reason: `${field}: ${issue.message} (got ${JSON.stringify(fields[field] ?? null)})`, raw: rawText });
      }
    }
  } catch (error) {
    if (error instanceof SourceError) throw error;
    if (error instanceof CsvError) throw new SourceError(file, (error as CsvError & { lines?: number }).lines, error.message, error);
    throw new SourceError(file, undefined, (error as Error).message, error);
  }
}
