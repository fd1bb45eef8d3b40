// The planner's statistics of the large tables, refreshed after large writes. A bulk
// operation or an import can add tens of thousands of rules at once; until the tables are
// analyzed again the planner still believes their old sizes (or, never analyzed, guesses),
// and PostgreSQL then plans a rules page's facet joins as nested loops over every row: a
// two-filter page over 6,000 freshly written rules took seconds instead of milliseconds.
// Autovacuum would analyze them in time, but only where it runs (it is off on some
// servers) and only after its next nap; SQLite never analyzes on its own.
import { type Kysely, sql } from 'kysely';
import { onPostgres } from './dialect.js';
import type { Database } from './schema.js';

/** The tables a kind of bulk write fills, the first one the measure of the group's size. */
const GROUPS = {
  rules: {
    postgres: ['rule', 'rule_facet', 'rule_word', 'rule_search'],
    sqlite: ['rule', 'rule_facet', 'rule_word'],
  },
  rewrites: {
    postgres: ['query_rewrite', 'query_rewrite_word'],
    sqlite: ['query_rewrite', 'query_rewrite_word'],
  },
  links: { postgres: ['link'], sqlite: ['link'] },
} as const;

export type TableGroup = keyof typeof GROUPS;

// PostgreSQL's own rule for when a table needs analyzing (autovacuum_analyze_threshold and
// autovacuum_analyze_scale_factor at their defaults): 50 rows plus a tenth of the table.
const BASE_ROWS = 50;
const SHARE = 0.1;
// SQLite: rows sampled per index, so that analyzing a table of a million rules holds the
// (single) connection for milliseconds, not seconds; the estimates stay good enough to plan.
const SQLITE_ANALYSIS_LIMIT = 1000;

interface Logger {
  warn(details: object, message: string): void;
}

/**
 * Counts the rows large writes changed per group of tables and, once they pass PostgreSQL's
 * own threshold against the size the statistics were gathered on, analyzes the group in
 * the background. One refresh per group runs at a time; rows written meanwhile are counted
 * for the next.
 */
export class PlannerStatistics {
  readonly #pending = new Map<TableGroup, number>();
  readonly #running = new Map<TableGroup, Promise<void>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: Logger,
  ) {}

  /** `rows` rows of the group were written and committed; never throws, never waits. */
  wrote(group: TableGroup, rows: number): void {
    if (rows <= 0) return;
    this.#pending.set(group, (this.#pending.get(group) ?? 0) + rows);
    if (this.#running.has(group)) return;
    const refresh = this.#refresh(group)
      .catch((error) => this.log.warn({ err: error, group }, 'planner statistics not refreshed'))
      .finally(() => this.#running.delete(group));
    this.#running.set(group, refresh);
  }

  /** Resolves once no refresh is under way (the app awaits it before closing the store). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()]);
  }

  async #refresh(group: TableGroup): Promise<void> {
    const postgres = onPostgres(this.db);
    const tables = GROUPS[group][postgres ? 'postgres' : 'sqlite'];
    for (;;) {
      const basis = await (postgres ? plannedRowsPostgres : plannedRowsSqlite)(this.db, tables[0]);
      // Read after the await, so rows reported while the basis was read are weighed too.
      const written = this.#pending.get(group) ?? 0;
      if (basis !== undefined && written <= BASE_ROWS + SHARE * basis) return;
      this.#pending.set(group, 0);
      if (postgres) await analyzePostgres(this.db, tables);
      else await analyzeSqlite(this.db, tables);
    }
  }
}

/** The rows PostgreSQL's statistics hold for the table, undefined when it was never analyzed. */
async function plannedRowsPostgres(db: Kysely<Database>, table: string): Promise<number | undefined> {
  const { rows } = await sql<{ rows: number | null }>`
    select reltuples::float8 as rows from pg_class where oid = to_regclass(${table})`.execute(db);
  const rowsThen = rows[0]?.rows ?? -1;
  // -1: never analyzed nor vacuumed.
  return rowsThen < 0 ? undefined : rowsThen;
}

/** The rows SQLite's statistics hold for the table, undefined when it was never analyzed. */
async function plannedRowsSqlite(db: Kysely<Database>, table: string): Promise<number | undefined> {
  const { rows: stats } = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name = 'sqlite_stat1'`.execute(db);
  if (stats.length === 0) return undefined;
  // One row per index, each starting with the rows it holds; a partial index holds fewer.
  const { rows } = await sql<{ rows: number | null }>`
    select max(cast(stat as integer)) as rows from sqlite_stat1 where tbl = ${table}`.execute(db);
  return rows[0]?.rows ?? undefined;
}

async function analyzePostgres(db: Kysely<Database>, tables: readonly string[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // The connection's statement timeout bounds requests; analyzing a large table may take longer.
    await sql`set local statement_timeout = 0`.execute(trx);
    await sql`analyze ${sql.join(tables.map((table) => sql.table(table)))}`.execute(trx);
  });
}

async function analyzeSqlite(db: Kysely<Database>, tables: readonly string[]): Promise<void> {
  await sql.raw(`pragma analysis_limit = ${SQLITE_ANALYSIS_LIMIT}`).execute(db);
  for (const table of tables) await sql`analyze ${sql.table(table)}`.execute(db);
}
