import { Connection, type ConnectionConfiguration, Request } from 'tedious';
import type { TediousType } from './mssql-types.ts';

/** One bound parameter of a {@link MssqlSession} query (`@name` in the SQL). */
export interface MssqlSessionParameter {
  readonly name: string;
  readonly type: TediousType;
  readonly value: unknown;
  readonly options?: { readonly length?: number };
}

/** How long `close()` waits for tedious to report the socket closed. */
const CLOSE_WAIT_MS = 5000;

/**
 * One raw tedious connection that idem opens and owns itself: one server session for as long as
 * the object lives, never shared with a pool (session-owned app locks live on it). Queries run
 * one at a time, in call order (TDS runs one request per connection).
 */
export class MssqlSession {
  readonly #connection: Connection;
  #queue: Promise<unknown> = Promise.resolve();
  #failure: Error | undefined;
  #closing = false;
  #ended = false;

  private constructor(connection: Connection) {
    this.#connection = connection;
    connection.on('error', (error) => {
      this.#failure ??= error;
    });
    connection.on('end', () => {
      this.#ended = true;
      if (!this.#closing) this.#failure ??= new Error('the connection to SQL Server was closed');
    });
  }

  /** Connects and logs in. @throws the driver's error when the server cannot be reached or refuses the login. */
  static open(config: ConnectionConfiguration): Promise<MssqlSession> {
    return new Promise((resolve, reject) => {
      const connection = new Connection(config);
      // Without a listener, a socket error on an idle connection would crash the process.
      const early = (error: Error): void => reject(error);
      connection.on('error', early);
      connection.connect((error) => {
        if (error) {
          connection.close();
          reject(error);
          return;
        }
        connection.off('error', early);
        resolve(new MssqlSession(connection));
      });
    });
  }

  /** Why the session is gone (connection error or server-side close), if it is. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /**
   * Runs one batch with bound parameters (tedious sends it through `sp_executesql`) and returns
   * every row of every result set as an object by column name.
   */
  query<T extends Record<string, unknown>>(sql: string, parameters: readonly MssqlSessionParameter[] = []): Promise<T[]> {
    const run = (): Promise<T[]> =>
      new Promise((resolve, reject) => {
        if (this.#failure) {
          reject(this.#failure);
          return;
        }
        const rows: T[] = [];
        const request = new Request(sql, (error) => (error ? reject(error) : resolve(rows)));
        for (const p of parameters) request.addParameter(p.name, p.type, p.value, p.options ?? null);
        request.on('row', (columns: { value: unknown; metadata: { colName: string } }[]) => {
          rows.push(Object.fromEntries(columns.map((c) => [c.metadata.colName, c.value])) as T);
        });
        this.#connection.execSql(request);
      });
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** Closes the session after the queries already asked for (the server then frees its session locks). Never throws. */
  async close(): Promise<void> {
    await this.#queue;
    if (this.#ended) return;
    this.#closing = true;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_WAIT_MS);
      timer.unref();
      this.#connection.once('end', () => {
        clearTimeout(timer);
        resolve();
      });
      this.#connection.close();
    });
  }
}
