// Queries of the hot paths, built by Kysely once per shape and kept compiled: a request
// then binds its values and runs the statement, without building and compiling the query
// anew (which cost about as much as running a point lookup). On PostgreSQL such a statement
// is also prepared once per connection (a named statement) instead of parsed on every call.
// On SQLite a read outside a transaction goes straight to a read-only connection of its own
// (`PointReads`), without Kysely's executor: the executor's queue for the one connection,
// its plugins and its promises cost as much again as the read itself.
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

// A placeholder value while the query is built: no bound value can be it, since text holding
// NUL is refused where it enters (http/well-formed-text.ts) and the markers never reach SQL.
const MARKER = '\0searchdeck-parameter-';

/** Stands for the i-th argument while a prepared query is built. */
export type Parameter = (index: number) => string;

const parameter: Parameter = (index) => `${MARKER}${index}`;

// The SQL texts that are run as named statements on PostgreSQL, and their names. Only
// queries declared here are named, so the statements a connection keeps stay few.
const statementNames = new Map<string, string>();

/** The name a prepared SQL text runs under on PostgreSQL, or undefined for any other text. */
export function statementName(text: string): string | undefined {
  return statementNames.get(text);
}

/**
 * Runs a compiled read at once and answers its rows, or undefined when the statement is not
 * a read (the caller then runs it the usual way). It reads committed data only.
 */
export type PointReads = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;

// The handles whose prepared reads may be run directly: the main handle of a SQLite store. A
// transaction is another object and is never here, so its reads see its own writes as before.
const pointReadsOf = new WeakMap<Kysely<Database>, PointReads>();

/** Lets prepared reads through `db` (not its transactions) run on `reads` instead of through Kysely. */
export function registerPointReads(db: Kysely<Database>, reads: PointReads): void {
  pointReadsOf.set(db, reads);
}

interface Template {
  compiled: CompiledQuery;
  /** Per bound parameter: the argument it takes, or -1 for a constant of the query itself. */
  sources: number[];
}

/**
 * A family of queries that differ only in their shape (which conditions apply), each
 * compiled once per engine. `shape` names the query as a function of its arguments'
 * presence; `build` must give the same query for the same shape.
 */
export class PreparedQueries<R> {
  // Templates per engine, keyed by the class of the handle's adapter: the compiled SQL depends
  // on the dialect only, so every handle and transaction on one engine shares them, and there
  // are at most as many entries as engines (SQLite and PostgreSQL).
  readonly #templates = new Map<object, Map<string, Template>>();

  constructor(private readonly name: string) {}

  /** Runs the query of this shape with these arguments (those `build` asked for by index). */
  async execute(
    db: Kysely<Database>,
    shape: string,
    build: (db: Kysely<Database>, parameter: Parameter) => Compilable<R>,
    args: readonly unknown[],
  ): Promise<R[]> {
    const engine = db.getExecutor().adapter.constructor;
    let byShape = this.#templates.get(engine);
    if (byShape === undefined) {
      byShape = new Map();
      this.#templates.set(engine, byShape);
    }
    let template = byShape.get(shape);
    if (template === undefined) {
      template = this.#compile(build(db, parameter));
      byShape.set(shape, template);
    }
    const { compiled, sources } = template;
    const parameters = sources.map((source, i) => (source < 0 ? compiled.parameters[i] : args[source]));
    const direct = pointReadsOf.get(db)?.(compiled.sql, parameters);
    if (direct !== undefined) return direct as R[];
    // The compiled query with this request's values; no plugin is installed that would
    // keep state by query id, so the template's own id is kept.
    const result = await db.executeQuery<R>({ ...compiled, parameters } as CompiledQuery<R>);
    return result.rows;
  }

  #compile(query: Compilable<R>): Template {
    const compiled = query.compile();
    const sources = compiled.parameters.map((value) =>
      typeof value === 'string' && value.startsWith(MARKER) ? Number(value.slice(MARKER.length)) : -1,
    );
    if (!statementNames.has(compiled.sql)) {
      statementNames.set(compiled.sql, `searchdeck_${this.name}_${statementNames.size}`);
    }
    return { compiled, sources };
  }
}
