import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';

// The least a route that reads the database once per request can do: bare Fastify and one
// prepared statement (better-sqlite3, or pg with a named statement over a pool of 10), with no
// authentication, logging or other work. Its share of the bare route's throughput is the
// ceiling that one read per request leaves on this machine, for a scenario to set its own
// figure beside.
//
// PEER_SQL: the statement, with $1, $2 … for its values.
// PEER_VALUES: a JSON array, one entry per value: `{ "query": name }` takes the request's
//   query parameter of that name, `{ "value": v }` a constant.
// BARE_BODY: the JSON answered to every request; without it, whether the statement found a row.
// PEER_SQLITE_FILE or PEER_POSTGRES_URL: the store to read.
type Source = { query: string } | { value: string };
const sql = required('PEER_SQL');
const sources = JSON.parse(required('PEER_VALUES')) as Source[];
const body = process.env.BARE_BODY === undefined ? undefined : JSON.parse(process.env.BARE_BODY);

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
}

type Read = (values: string[]) => Promise<boolean>;

function sqliteRead(file: string): Read {
  const db = new SqliteDatabase(file, { fileMustExist: true });
  const statement = db.prepare(sql.replace(/\$\d+/g, '?'));
  return async (values) => statement.get(...values) !== undefined;
}

function postgresRead(url: string): Read {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  return async (values) => {
    const result = await pool.query({ name: 'peer-read', text: sql, values });
    return (result.rowCount ?? 0) > 0;
  };
}

const sqliteFile = process.env.PEER_SQLITE_FILE;
const read = sqliteFile ? sqliteRead(sqliteFile) : postgresRead(required('PEER_POSTGRES_URL'));

const app = Fastify({ logger: false });
app.get('/*', async (request) => {
  const query = request.query as Record<string, string | undefined>;
  const found = await read(sources.map((s) => ('query' in s ? (query[s.query] ?? '') : s.value)));
  return body ?? found;
});
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening at ${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
