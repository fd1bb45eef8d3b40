import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import { type Parameter, PreparedQueries } from '../storage/prepared-query.js';
import type { Database } from '../storage/schema.js';
import type { LinkTable } from './tables.js';

/** A link as the repository reads it, already written in the direction that was asked for. */
export interface LinkRow {
  subject: string;
  object: string;
  link_type: string;
  originator: string;
  created_at: string;
}

/**
 * One direction in which stored rows are read. `forward` rows are shown as stored (or as the
 * client wrote them, when `asGiven`); reverse rows are shown swapped with the reverse type.
 * The conditions apply to the stored row's columns.
 */
export interface RowSelection {
  reverse: boolean;
  asGiven?: boolean;
  subject?: string | undefined;
  object?: string | undefined;
  /** Stored types to match; undefined means any (for reverse: any reversible). */
  types?: string[] | undefined;
}

export interface SelectOptions {
  /** Only links whose two ends are in the context of this app object (`app:{name}`). */
  appObject?: string | undefined;
  /** Keep only links whose object nothing but `exclusiveOf` depends on, has or contains. */
  exclusiveOf?: string | undefined;
  limit: number;
  offset: number;
}

type LinkEb = ExpressionBuilder<Database, 'link'>;

const reverseType = sql<string>`case link.link_type when 'dependsOn' then 'supports' when 'isPartOf' then 'hasPart' when 'inContextOf' then 'hasContext' else link.link_type end`;

function selection(db: Kysely<Database>, s: RowSelection, appObject: string | undefined) {
  const swap = s.reverse ? sql<number>`1` : s.asGiven ? sql<number>`link.given_reversed` : sql<number>`0`;
  return db
    .selectFrom('link')
    .select([
      sql<string>`case when ${swap} = 1 then link.object else link.subject end`.as('subject'),
      sql<string>`case when ${swap} = 1 then link.subject else link.object end`.as('object'),
      (s.reverse
        ? reverseType
        : sql<string>`case when ${swap} = 1 then ${reverseType} else link.link_type end`
      ).as('link_type'),
      'link.originator',
      'link.created_at',
      sql<string>`link.subject`.as('k1'),
      sql<string>`link.link_type`.as('k2'),
      sql<string>`link.object`.as('k3'),
    ])
    .where((eb) => matches(eb, s, appObject));
}

/** The stored rows a selection reads. */
function matches(eb: LinkEb, s: RowSelection, appObject: string | undefined): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [];
  if (s.subject !== undefined)
    conditions.push(eb(s.reverse ? 'link.object' : 'link.subject', '=', s.subject));
  if (s.object !== undefined) conditions.push(eb(s.reverse ? 'link.subject' : 'link.object', '=', s.object));
  if (s.types) conditions.push(eb('link.link_type', 'in', s.types));
  else if (s.reverse) conditions.push(eb('link.link_type', '!=', 'relatesTo'));
  if (appObject !== undefined) {
    conditions.push(inContext(eb, 'link.subject', appObject), inContext(eb, 'link.object', appObject));
  }
  return eb.and(conditions);
}

/** An end is in an app's context when it is the app or a link puts it `inContextOf` the app. */
function inContext(eb: LinkEb, column: 'link.subject' | 'link.object', appObject: string) {
  return eb.or([
    eb(column, '=', appObject),
    eb.exists(
      eb
        .selectFrom('link as c')
        .select(sql`1`.as('one'))
        .whereRef('c.subject', '=', column)
        .where('c.link_type', '=', 'inContextOf')
        .where('c.object', '=', appObject),
    ),
  ]);
}

/**
 * Reads links in the given directions, one page of them. UNION drops the second copy of a
 * link whose two directions read the same (`self`); the order is the stored key, so it is
 * stable across pages. The query is compiled once per shape (which directions, which of
 * their conditions, app scope, exclusivity); building it took as long as running it.
 */
export async function selectLinks(
  db: Kysely<Database>,
  selections: RowSelection[],
  options: SelectOptions,
): Promise<LinkRow[]> {
  if (selections.length === 0) return [];
  const { shape, args } = pageLayout(selections, options);
  return pages.execute(
    db,
    shape,
    (db, parameter) => pageQuery(db, ...withParameters(selections, options, parameter)),
    args,
  );
}

const pages = new PreparedQueries<LinkRow>('link_page');

/**
 * The shape of a page query and its arguments, in the order `withParameters` numbers them:
 * per selection its subject, object and types, then the app, the exclusive owner, limit and
 * offset, each only when given.
 */
function pageLayout(selections: RowSelection[], options: SelectOptions): { shape: string; args: unknown[] } {
  const args: unknown[] = [];
  let shape = '';
  for (const s of selections) {
    shape += `${s.reverse ? 'r' : 'f'}${s.asGiven ? 'g' : ''}${s.subject === undefined ? '' : 's'}${s.object === undefined ? '' : 'o'}${s.types?.length ?? ''};`;
    if (s.subject !== undefined) args.push(s.subject);
    if (s.object !== undefined) args.push(s.object);
    if (s.types) args.push(...s.types);
  }
  if (options.appObject !== undefined) args.push(options.appObject);
  if (options.exclusiveOf !== undefined) args.push(options.exclusiveOf);
  shape += `${options.appObject === undefined ? '' : 'a'}${options.exclusiveOf === undefined ? '' : 'x'}`;
  args.push(options.limit, options.offset);
  return { shape, args };
}

/** The selections and options with each given value replaced by its parameter (see `pageLayout`). */
function withParameters(
  selections: RowSelection[],
  options: SelectOptions,
  parameter: Parameter,
): [RowSelection[], SelectOptions] {
  let next = 0;
  const given = (value: string | undefined) => (value === undefined ? undefined : parameter(next++));
  const parameterized = selections.map((s) => ({
    reverse: s.reverse,
    asGiven: s.asGiven,
    subject: given(s.subject),
    object: given(s.object),
    types: s.types?.map(() => parameter(next++)),
  }));
  const appObject = given(options.appObject);
  const exclusiveOf = given(options.exclusiveOf);
  // Bound as parameters (markers until then): SQLite does not plan this query by its LIMIT.
  const limit = parameter(next++) as unknown as number;
  const offset = parameter(next++) as unknown as number;
  return [parameterized, { appObject, exclusiveOf, limit, offset }];
}

function pageQuery(db: Kysely<Database>, selections: RowSelection[], options: SelectOptions) {
  const [first, ...rest] = selections.map((s) => selection(db, s, options.appObject));
  const union = rest.reduce((acc, q) => acc.union(q), first!);
  let query = db
    .selectFrom(union.as('u'))
    .select(['u.subject', 'u.object', 'u.link_type', 'u.originator', 'u.created_at']);
  if (options.exclusiveOf !== undefined) {
    const owner = options.exclusiveOf;
    query = query.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('link as o')
            .select(sql`1`.as('one'))
            .where((eb) =>
              eb.or([
                eb.and([
                  eb('o.link_type', '=', 'dependsOn'),
                  eb('o.object', '=', eb.ref('u.object')),
                  eb('o.subject', '!=', owner),
                ]),
                eb.and([
                  eb('o.link_type', 'in', ['isPartOf', 'inContextOf']),
                  eb('o.subject', '=', eb.ref('u.object')),
                  eb('o.object', '!=', owner),
                ]),
              ]),
            ),
        ),
      ),
    );
  }
  return query
    .orderBy('u.k1')
    .orderBy('u.k2')
    .orderBy('u.k3')
    .orderBy('u.link_type')
    .limit(options.limit)
    .offset(options.offset);
}

// The check is the hot path of links: its queries are compiled once per shape.
const checks = new PreparedQueries<{ one: number }>('link_check');

/** True when any stored row matches one of the selections. */
export async function anyLink(
  db: Kysely<Database>,
  selections: RowSelection[],
  appObject: string | undefined,
): Promise<boolean> {
  // Only existence is asked: no output columns to build, which halves the cost of a check.
  for (const s of selections) {
    const shape = `${s.reverse}:${s.subject !== undefined}:${s.object !== undefined}:${s.types?.length}:${appObject !== undefined}`;
    const rows = await checks.execute(
      db,
      shape,
      (db, parameter) =>
        db
          .selectFrom('link')
          .select(sql<number>`1`.as('one'))
          .where((eb) =>
            matches(
              eb,
              {
                reverse: s.reverse,
                subject: s.subject === undefined ? undefined : parameter(0),
                object: s.object === undefined ? undefined : parameter(1),
                types: s.types?.map((_, i) => parameter(3 + i)),
              },
              appObject === undefined ? undefined : parameter(2),
            ),
          )
          .limit(1),
      [s.subject, s.object, appObject, ...(s.types ?? [])],
    );
    if (rows.length > 0) return true;
  }
  return false;
}

/**
 * The distinct `app:` names at either end of a stored link. Each end's partial index of app
 * names is walked from one name to the next (a loose index scan), so the read costs one
 * index step per app, not one per link.
 */
export async function selectAppNames(db: Kysely<Database>): Promise<string[]> {
  const names = new Set<string>();
  for (const end of ['subject', 'object'] as const) {
    const column = sql.ref(`link.${end}`);
    // The pattern is a literal, as in the index's definition: the planner must see that
    // the query asks only for rows the partial index holds.
    const isApp = sql`${column} like 'app:%'`;
    const { rows } = await sql<{ name: string | null }>`
      with recursive walk(name) as (
        select min(${column}) from link where ${isApp}
        union all
        select (select min(${column}) from link where ${isApp} and ${column} > walk.name)
        from walk where walk.name is not null
      )
      select name from walk where name is not null`.execute(db);
    for (const { name } of rows) if (name !== null) names.add(name);
  }
  return [...names];
}

/** Inserts a row unless the relationship is stored already; returns the stored row. */
export async function insertLink(db: Kysely<Database>, row: LinkTable): Promise<LinkTable> {
  await db
    .insertInto('link')
    .values(row)
    .onConflict((oc) => oc.columns(['subject', 'link_type', 'object']).doNothing())
    .execute();
  return db
    .selectFrom('link')
    .selectAll()
    .where('subject', '=', row.subject)
    .where('link_type', '=', row.link_type)
    .where('object', '=', row.object)
    .executeTakeFirstOrThrow();
}

/**
 * Rows per multi-row insert: six parameters each, so a statement binds 6,000, far under
 * PostgreSQL's limit of 65,535 (and SQLite's 32,766).
 */
export const LINK_INSERT_CHUNK = 1000;

/** A stored relationship's key: its canonical direction. */
export type StoredLinkKey = Pick<LinkTable, 'subject' | 'link_type' | 'object'>;

/**
 * Inserts the rows whose relationship is not stored yet, one statement per chunk; answers the
 * keys of the rows it inserted (a row stored already, or inserted by another writer meanwhile,
 * is not among them). The rows' keys must be distinct.
 */
export async function insertMissingLinks(db: Kysely<Database>, rows: LinkTable[]): Promise<StoredLinkKey[]> {
  const inserted: StoredLinkKey[] = [];
  for (let i = 0; i < rows.length; i += LINK_INSERT_CHUNK) {
    const chunk = await db
      .insertInto('link')
      .values(rows.slice(i, i + LINK_INSERT_CHUNK))
      .onConflict((oc) => oc.columns(['subject', 'link_type', 'object']).doNothing())
      .returning(['subject', 'link_type', 'object'])
      .execute();
    inserted.push(...chunk);
  }
  return inserted;
}

/** Deletes one stored row; true when it existed. */
export async function deleteStoredLink(
  db: Kysely<Database>,
  key: { subject: string; object: string; link_type: string },
): Promise<boolean> {
  const result = await db
    .deleteFrom('link')
    .where('subject', '=', key.subject)
    .where('link_type', '=', key.link_type)
    .where('object', '=', key.object)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes every link that has the object at either end; returns how many. */
export async function deleteLinksTouching(db: Kysely<Database>, name: string): Promise<number> {
  const result = await db
    .deleteFrom('link')
    .where((eb) => eb.or([eb('subject', '=', name), eb('object', '=', name)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
