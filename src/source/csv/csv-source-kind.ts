import { accessSync, constants, existsSync, lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../errors/usage-error.ts';
import { SourceError } from '../../errors/source-error.ts';
import { UnreadableFileError } from '../../errors/unreadable-file-error.ts';
import { countOption, deletionOptions, functionOption, invalidRowsOption, rowSchemaOption } from '../source-option-schemas.ts';
import type { SourceKind } from '../source-kind.ts';
import type { CsvSource } from './csv-source.ts';
import { rowSchemaKeys } from './row-schema-keys.ts';
import { csvLine } from '../../dialect/csv-line.ts';

/** Every option of a {@link CsvSource}, as `definePipeline` checks it. */
const CsvSourceOptions = z.strictObject({
  kind: z.literal('csv'),
  directory: z.string().min(1, { message: 'must be a directory, relative to the project directory' }).optional(),
  fileForDate: functionOption('a function of the business date').optional(),
  header: z.array(z.string()).min(1, { message: 'must name at least one column' }),
  headerMatch: z.enum(['name', 'position']),
  nullValues: z.array(z.string()),
  row: rowSchemaOption,
  invalidRows: invalidRowsOption,
  ...deletionOptions,
  missing: z.enum(['error', 'skip']),
  encoding: z.enum(['utf-8', 'windows-1252', 'latin1']),
  emptyFile: z.enum(['error', 'no-rows']),
  lastLineBreak: z.enum(['required', 'optional']),
  maxRecordBytes: countOption,
  decimalSeparator: z.enum(['.', ',']),
  groupSeparator: z.enum(['.', ',', ' ', "'", '\u00a0', '\u202f']).optional(),
  delimiter: z.string().regex(/^[^"\r\n]$/, { message: 'must be one character, not a double quote or a line break' }),
});

/**
 * `file`, unless it exists and is not a regular file this process may read. A symbolic link:
 * idem reads only regular files it is pointed at (a link dropped into a source directory could
 * make a run read any file the service user may read, and a link re-pointed between runs reads
 * other content under the same name). A FIFO would hang the run, holding its lock, until
 * something writes to it; a directory or a device is no source either. A file (or a directory on
 * its path) this process may not read is not a missing file. A rerun cannot fix any of them:
 * exit 2.
 * @throws UsageError naming the file and what it is, never reading it; UnreadableFileError.
 */
function refuseNonRegular(file: string): string {
  let stats;
  try {
    stats = lstatSync(file);
  } catch (error) {
    const unreadable = UnreadableFileError.of(file, error);
    if (unreadable) throw unreadable;
    return file; // absent: the pipeline's missing-file rule decides
  }
  if (stats.isSymbolicLink()) {
    throw new UsageError(`source file ${file} is a symbolic link, and idem reads only regular files: point --file or the source directory at the file itself`);
  }
  if (!stats.isFile()) {
    const what = stats.isDirectory() ? 'a directory' : stats.isFIFO() ? 'a FIFO (named pipe)' : stats.isSocket() ? 'a socket' : 'a device';
    throw new UsageError(`source file ${file} is ${what}, and idem reads only regular files: a producer should write the day's file under another name, then rename it into place`);
  }
  try {
    accessSync(file, constants.R_OK);
  } catch (error) {
    throw UnreadableFileError.of(file, error) ?? error;
  }
  return file;
}

/**
 * The CSV file source kind (`csvSource`): a file, read again when `groupRows` needs a sorted
 * pass, given with `--file` (its identity is the run key) or found for a business date in the
 * source's directory (`IDEM_SOURCE_DIR` overrides the pipeline's `directory`).
 */
export const CSV_SOURCE_KIND: SourceKind<CsvSource<unknown>> = {
  name: 'csv',
  fieldForm: 'text',
  numberFormat: (source) => ({ decimalSeparator: source.decimalSeparator, ...(source.groupSeparator === undefined ? {} : { groupSeparator: source.groupSeparator }) }),
  rereadable: true,
  readsFiles: true,
  observesRows: true,
  // Parsing, the byte checks and the row schema are CPU work; reading needs nothing but the file.
  readsInWorker: true,
  options: CsvSourceOptions,
  problems(source) {
    if (source.groupSeparator !== undefined && source.groupSeparator === source.decimalSeparator) {
      return [`source.groupSeparator and source.decimalSeparator are both ${JSON.stringify(source.decimalSeparator)}: a number could not be read`];
    }
    const { header } = source;
    const keys = rowSchemaKeys(source.row);
    const unread = (header && keys?.filter((name) => !header.includes(name))) ?? [];
    if (unread.length === 0) return [];
    const spare = header!.filter((name) => !keys!.includes(name));
    return [
      `source.header and source.row differ: the row schema reads ${unread.map((k) => JSON.stringify(k)).join(', ')}, which the header lacks` +
        `${spare.length ? `; header names the row schema does not read: ${spare.map((k) => JSON.stringify(k)).join(', ')}` : ''} (header ${header!.join(',')})`,
    ];
  },
  withDerivedRow: (source, { row, fields }) => Object.freeze({ ...source, row, header: source.header ?? fields }),
  locate(source, runKey, { pipelineName, config }) {
    if (runKey.kind === 'file') return refuseNonRegular(runKey.file);
    if (source.directory === undefined || source.fileForDate === undefined) {
      throw new UsageError(`pipeline "${pipelineName}" declares no dated files (csvSource directory and fileForDate): run it with --file PATH`);
    }
    const directory = path.resolve(config.projectDir, config.sourceDir ?? source.directory);
    // A missing file may be a day without data (`missing: 'skip'`); a missing directory is a
    // wrong setting or an unmounted share, whatever the pipeline says about missing files.
    if (!existsSync(directory) || !statSync(directory).isDirectory()) {
      throw new UsageError(`pipeline "${pipelineName}": its source directory ${directory} does not exist or is not a directory (${config.sourceDir === undefined ? "the pipeline's directory" : 'IDEM_SOURCE_DIR'})`);
    }
    return refuseNonRegular(path.join(directory, source.fileForDate(runKey.businessDate)));
  },
  skipReason(source, runKey, location) {
    if (runKey.kind !== 'date' || source.missing !== 'skip' || existsSync(location)) return undefined;
    return `no source file ${location}`;
  },
  checkLocation(source, { config }) {
    if (source.directory === undefined && config.sourceDir === undefined) return []; // a --file-only pipeline
    const setting = config.sourceDir === undefined ? `source.directory ${JSON.stringify(source.directory)}` : `IDEM_SOURCE_DIR ${JSON.stringify(config.sourceDir)}`;
    const directory = path.resolve(config.projectDir, (config.sourceDir ?? source.directory)!);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(directory).isDirectory();
    } catch {
      return [`the source directory ${directory} does not exist (${setting})`];
    }
    return isDirectory ? [] : [`the source directory ${directory} is not a directory (${setting})`];
  },
  sizeOf(location) {
    try {
      return statSync(location).size;
    } catch {
      return undefined;
    }
  },
  async read(source, location, quarantine, options) {
    if (!existsSync(location)) throw new SourceError(location, undefined, 'source file not found');
    if (source.header === undefined || source.row === undefined) {
      throw new SourceError(location, undefined, 'the CSV source declares no row schema: give csvSource a row, or the pipeline a key (definePipeline derives the row from its columns)');
    }
    const { readCsvRows } = await import('./read-csv-rows.ts');
    return readCsvRows(location, { ...source, header: source.header, row: source.row }, quarantine, options.onRow, options.unchanged);
  },
  // The replay file is idem's own, written as UTF-8 whatever the source's encoding.
  replay: (source, rows) => ({ text: `${csvLine(source.header ?? [], source.delimiter)}${rows.join('\n')}\n`, source: { ...source, encoding: 'utf-8' } }),
  changedCopy: async (source, request) => (await import('./changed-csv-copy.ts')).changedCsvCopy(source, request),
  scaffold: {
    flag: { name: 'csv', argument: 'file', description: 'a sample CSV file (header first)' },
    sample: async (file, options) => (await import('./csv-sample.ts')).sampleCsv(file, options),
  },
};
