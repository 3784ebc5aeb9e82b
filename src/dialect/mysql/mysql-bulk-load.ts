import { once } from 'node:events';
import { Readable, type Writable } from 'node:stream';
import type { Knex } from 'knex';
import type { Connection, QueryOptions, ResultSetHeader, RowDataPacket } from 'mysql2';
import { tabSeparatedEscapes, tabSeparatedLine } from '../tab-separated-line.ts';
import { quoteMysqlIdentifier as q } from './mysql-upsert.ts';

/** What the bulk load needs to know about the server (read once, on the first connection). */
export interface MysqlLoadSettings {
  /** `@@local_infile`: whether the server accepts `LOAD DATA LOCAL INFILE`. */
  readonly localInfile: boolean;
  /** `@@max_allowed_packet` in bytes: no statement of the INSERT fallback may be larger. */
  readonly maxAllowedPacket: number;
}

/** Characters per chunk of the `LOAD DATA` stream (a line longer than that is one chunk). */
const STREAM_CHUNK_CHARS = 32 * 1024;
/** The INSERT fallback's statements stay under this, and under 90% of `max_allowed_packet`. */
const INSERT_STATEMENT_MAX_BYTES = 4 * 1024 * 1024;

/** Characters MySQL's `LOAD DATA` text format reads specially, with their escapes. */
const LOAD_DATA_TEXT = tabSeparatedEscapes({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' });

/**
 * One row as a `LOAD DATA` line in MySQL's own text format (`FIELDS TERMINATED BY '\t' ESCAPED
 * BY '\\' LINES TERMINATED BY '\n'`, no enclosing quotes): NULL is `\N`; backslash, tab,
 * newline, carriage return and NUL are backslash-escaped; everything else is literal. Chosen
 * over CSV because `OPTIONALLY ENCLOSED BY '"'` reads an empty unquoted field and `""` alike
 * (both become ''), so NULL and the empty string could not be told apart; here `\N` and an
 * empty field can. Ends with `\n`.
 */
export function loadDataLine(values: readonly unknown[]): string {
  return tabSeparatedLine(values, LOAD_DATA_TEXT);
}

function query<T>(connection: Connection, options: QueryOptions, values?: unknown[]): Promise<T> {
  return new Promise((resolve, reject) => {
    connection.query(options, values, (error, result) => (error ? reject(error) : resolve(result as T)));
  });
}

/**
 * Writes each batch as Buffers of about {@link STREAM_CHUNK_CHARS} characters (mysql2 needs
 * Buffers): small enough that V8 keeps them out of its large-object space, where MiB-sized
 * strings and Buffers pile up until a full GC.
 */
async function* loadDataChunks(
  batches: AsyncIterable<unknown[][]>,
  counted: (rows: number) => void,
  drained: () => Promise<void>,
): AsyncGenerator<Buffer> {
  for await (const batch of batches) {
    let text = '';
    for (const row of batch) {
      text += loadDataLine(row);
      if (text.length >= STREAM_CHUNK_CHARS) {
        await drained();
        yield Buffer.from(text, 'utf8');
        text = '';
      }
    }
    counted(batch.length);
    if (text.length > 0) {
      await drained();
      yield Buffer.from(text, 'utf8');
    }
  }
}

/**
 * Waits until the connection's socket has written what it holds. mysql2 reads the
 * `infileStreamFactory` stream as fast as it yields and writes every chunk to the socket
 * (it pauses the stream only on a socket `pause` event, which a writable socket never emits), so
 * without this wait a server slower than the parse makes the socket buffer the whole load.
 */
function socketDrained(connection: Connection): () => Promise<void> {
  const socket = (connection as unknown as { stream?: Writable }).stream;
  return async () => {
    if (!socket?.writableNeedDrain) return;
    await Promise.race([once(socket, 'drain'), once(socket, 'close')]);
  };
}

/**
 * The fast path: one `LOAD DATA LOCAL INFILE` statement reading a stream the batches feed
 * (mysql2 `infileStreamFactory`), so memory stays one batch. `LOCAL` turns data errors into
 * warnings (the server cannot stop the client mid-stream), so any warning, or a row count other
 * than the rows sent, fails the load.
 */
async function loadData(connection: Connection, table: string, columns: readonly string[], batches: AsyncIterable<unknown[][]>): Promise<number> {
  let rows = 0;
  const stream = Readable.from(loadDataChunks(batches, (n) => (rows += n), socketDrained(connection)));
  const sql =
    `load data local infile 'idem-staging' into table ${q(table)} character set utf8mb4 ` +
    `fields terminated by '\\t' escaped by '\\\\' lines terminated by '\\n' (${columns.map(q).join(', ')})`;
  const result = await query<ResultSetHeader>(connection, { sql, infileStreamFactory: () => stream });
  if (result.warningStatus > 0) {
    const warnings = await query<RowDataPacket[]>(connection, { sql: 'show warnings limit 3' });
    throw new Error(`LOAD DATA into ${table} raised ${result.warningStatus} warning(s): ${warnings.map((w) => w.Message).join('; ')}`);
  }
  if (result.affectedRows !== rows) throw new Error(`LOAD DATA into ${table} loaded ${result.affectedRows} of ${rows} rows`);
  return rows;
}

/**
 * The fallback when the server refuses `LOCAL` (`local_infile=OFF`, MySQL 8's default):
 * multi-row INSERTs with values escaped by mysql2, each statement as large as `maxStatementBytes`
 * allows (one row at least).
 */
async function insertRows(
  connection: Connection,
  table: string,
  columns: readonly string[],
  batches: AsyncIterable<unknown[][]>,
  maxStatementBytes: number,
): Promise<number> {
  const prefix = `insert into ${q(table)} (${columns.map(q).join(', ')}) values `;
  let sql = prefix;
  let bytes = Buffer.byteLength(prefix);
  let pending = 0;
  let rows = 0;
  const flush = async (): Promise<void> => {
    if (pending === 0) return;
    await query(connection, { sql });
    rows += pending;
    sql = prefix;
    bytes = Buffer.byteLength(prefix);
    pending = 0;
  };
  for await (const batch of batches) {
    for (const row of batch) {
      const tuple = `${pending > 0 ? ', ' : ''}(${row.map((value) => connection.escape(value)).join(', ')})`;
      const tupleBytes = Buffer.byteLength(tuple);
      if (pending > 0 && bytes + tupleBytes > maxStatementBytes) {
        await flush();
        const first = tuple.slice(2);
        sql += first;
        bytes += Buffer.byteLength(first);
      } else {
        sql += tuple;
        bytes += tupleBytes;
      }
      pending += 1;
    }
  }
  await flush();
  return rows;
}

/** The INSERT fallback's statement size limit for a server's `max_allowed_packet`. */
export function insertStatementMaxBytes(maxAllowedPacket: number): number {
  return Math.max(1024, Math.min(INSERT_STATEMENT_MAX_BYTES, Math.floor(maxAllowedPacket * 0.9)));
}

/**
 * Loads rows by `LOAD DATA LOCAL INFILE` when the server allows it, else by multi-row INSERTs,
 * on one pooled connection inside one transaction: the load is all or nothing, like one
 * PostgreSQL `COPY` (a crash or an error mid-load leaves no rows behind). Given a knex
 * transaction (`--dry-run` stages inside one), it loads on that transaction's connection under a
 * savepoint instead: `START TRANSACTION` would silently commit the caller's transaction.
 */
export async function mysqlBulkLoad(
  knex: Knex | Knex.Transaction,
  table: string,
  columns: readonly string[],
  batches: AsyncIterable<unknown[][]>,
  settings: () => MysqlLoadSettings,
): Promise<number> {
  const nested = (knex as Partial<Knex.Transaction>).isTransaction === true;
  const [begin, commit, rollback] = nested
    ? ['savepoint idem_bulk_load', 'release savepoint idem_bulk_load', 'rollback to savepoint idem_bulk_load']
    : ['start transaction', 'commit', 'rollback'];
  // On a transaction, knex hands out the transaction's own connection.
  const connection = (await knex.client.acquireConnection()) as Connection;
  try {
    const { localInfile, maxAllowedPacket } = settings();
    await query(connection, { sql: begin });
    try {
      const rows = localInfile
        ? await loadData(connection, table, columns, batches)
        : await insertRows(connection, table, columns, batches, insertStatementMaxBytes(maxAllowedPacket));
      await query(connection, { sql: commit });
      return rows;
    } catch (error) {
      await query(connection, { sql: rollback }).catch(() => undefined);
      throw error;
    }
  } finally {
    await knex.client.releaseConnection(connection);
  }
}
