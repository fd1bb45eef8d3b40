// Long reads of the SQLite database off the event loop. better-sqlite3 answers on the
// thread that asks, so one statement that ranks 100,000 rules holds every other request
// for its whole length. This handle sends its statements to a worker thread with its own
// read-only connection instead (WAL lets it read beside the main connection's writes,
// and it sees every committed write), and awaits the rows.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { LiteralLimits } from './literal-limits.js';
import type { Database } from './schema.js';

// The worker's code, run as CommonJS: opens the file read-only and answers each message. A
// checkpoint (copying the write-ahead log into the database file) needs a connection that may
// write: one is opened for it on the first, and never writes a row.
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const statements = new Map();
let checkpointer;
parentPort.on('message', ({ id, sql, parameters, checkpoint }) => {
  try {
    if (checkpoint) {
      checkpointer ??= new Database(workerData.file, { fileMustExist: true });
      parentPort.postMessage({ id, rows: checkpointer.pragma('wal_checkpoint(PASSIVE)') });
      return;
    }
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (statements.size >= 200) statements.delete(statements.keys().next().value);
      statements.set(sql, statement);
    }
    if (!statement.reader) throw Object.assign(new Error('the reader only reads'), { code: 'READ_ONLY' });
    parentPort.postMessage({ id, rows: statement.all(parameters) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error.message, code: error.code } });
  }
});`;

type Answer = { id: number; rows?: unknown[]; error?: { message: string; code?: string } };

class WorkerConnection implements DatabaseConnection {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<
    number,
    { resolve(rows: unknown[]): void; reject(error: Error): void }
  >();

  constructor(private readonly file: string) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const rows = await this.ask({ sql: query.sql, parameters: query.parameters });
    return { rows: rows as R[] };
  }

  /** A passive checkpoint on the worker's thread: it copies what it can and waits for no one. */
  async checkpoint(): Promise<void> {
    await this.ask({ checkpoint: true });
  }

  private ask(message: object): Promise<unknown[]> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<unknown[]>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }

  // biome-ignore lint/correctness/useYield: the reader answers whole results only.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQLite reader does not stream');
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = undefined;
  }

  /** The worker, started at the first statement: stores that never read long start none. */
  private started(): Worker {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_CODE, { eval: true, workerData: { file: this.file, driver } });
    worker.unref();
    worker.on('message', ({ id, rows, error }: Answer) => {
      const waiting = this.waiting.get(id);
      this.waiting.delete(id);
      if (!waiting) return;
      if (error) waiting.reject(Object.assign(new Error(error.message), { code: error.code }));
      else waiting.resolve(rows ?? []);
    });
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', () => {
      this.worker = undefined;
      this.failAll(new Error('the SQLite reader stopped'));
    });
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}

class WorkerDriver implements Driver {
  constructor(private readonly connection: WorkerConnection) {}

  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('the SQLite reader takes no transactions');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.connection.close();
  }
}

/**
 * A read-only handle on the SQLite file whose statements run on a worker thread, and
 * checkpoints of its write-ahead log run on that thread too.
 */
export function sqliteReader(file: string): { db: Kysely<Database>; checkpoint(): Promise<void> } {
  const connection = new WorkerConnection(file);
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new WorkerDriver(connection),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
    plugins: [new LiteralLimits()],
  });
  return { db, checkpoint: () => connection.checkpoint() };
}
