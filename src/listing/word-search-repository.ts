// Search of a listing's items by the words of `searchQuery`, over an area's word index
// (a side table of rows `studio_id, word, <item id>`), as a set of items the listing
// can drive a query with, check one item against, or size.
import {
  type AliasedExpression,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import type { Database } from '../storage/schema.js';

// Search words of a typical item: what checking one item against the query words costs.
const WORDS_PER_ITEM = 30;

/** Items a facet or a search selects, from a side table. */
export interface IdSet<Id extends string> {
  /** The set's items, each once, as the derived table `c`. */
  table(): AliasedExpression<Record<Id, string>, 'c'>;
  /** Whether one item is in the set: a few index seeks. */
  has(itemId: Expression<string>): Expression<SqlBool>;
  /**
   * `has`, written so that the planner keeps it a lookup per item where it would otherwise
   * turn it into a join over the whole set (see `flattensExists`); absent, `has` is used.
   */
  probe?(itemId: Expression<string>): Expression<SqlBool>;
  /** Side rows read to list the set: at least its items, a cheap count of index ranges. */
  size(): Promise<number>;
  /** Whether `size()` is exactly the number of items (then a lone set's total needs no count). */
  readonly exact?: boolean;
}

/** An area's word index: its table and the column naming the item. */
export interface WordIndex<Id extends string> {
  table: keyof Database & string;
  id: Id;
}

/**
 * The items having, for every query word, a word that begins with it. The query words
 * are rows of a small table joined to the word index (one range each) in a fixed number
 * of statements, so the work grows with the words linearly, where one condition or
 * subquery per word made the planners' work grow faster (seconds at 100 words).
 */
export function wordSearchSet<Id extends string>(
  db: Kysely<Database>,
  studioId: string,
  words: readonly string[],
  index: WordIndex<Id>,
): IdSet<Id> {
  const q = queryWords(words);
  const wordTable = sql.table(index.table);
  const id = sql.ref(`w.${index.id}`);
  const matches = sql`${wordTable} w join ${q} q on w.word >= q.lo and w.word < q.hi`;
  const everyWord = sql`count(distinct q.pos) = ${sql.lit(words.length)}`;
  // How `table` reads the set, chosen by `size` from the words' counts: every word's
  // range at once, or the rarest word's items each checked against the other words.
  let plan: { rarest: string } | 'ranges' = 'ranges';
  const has = (itemId: Expression<string>) =>
    // The item's own words (one index range) against the query's: no word range is scanned per item.
    sql<SqlBool>`${sql.lit(words.length)} = (select count(distinct q.pos) from ${matches}
      where ${id} = ${itemId})`;
  return {
    table: () => {
      if (plan === 'ranges') {
        return sql<Record<Id, string>>`(select ${id} from ${matches} where w.studio_id = ${studioId}
          group by ${id} having ${everyWord})`.as('c');
      }
      const { rarest } = plan;
      const cId = sql.ref<string>(`c.${index.id}`);
      return sql<Record<Id, string>>`(select ${cId} from (
          select distinct ${sql.ref(index.id)} from ${wordTable}
          where studio_id = ${studioId} and word >= ${rarest} and word < ${upperBound(rarest)}
        ) c where ${has(cId)})`.as('c');
    },
    has,
    size: async () => {
      const counts = await sql<{ pos: number; n: number }>`select q.pos, count(${id}) as n
        from ${q} q left join ${wordTable} w
        on w.studio_id = ${studioId} and w.word >= q.lo and w.word < q.hi
        group by q.pos`.execute(db);
      const sizes = counts.rows.map((row) => ({ pos: Number(row.pos), n: Number(row.n) }));
      const least = sizes.reduce((a, b) => (b.n < a.n ? b : a));
      const ranges = sizes.reduce((sum, { n }) => sum + n, 0);
      const perItem = words.length * WORDS_PER_ITEM;
      plan = least.n * perItem < ranges ? { rarest: words[least.pos]! } : 'ranges';
      return least.n;
    },
  };
}

/**
 * The query words as a derived table `(pos, lo, hi)`: words beginning with a query word
 * lie in [lo, hi), one index range, as text compares by bytes on both engines.
 */
export function queryWords(words: readonly string[]): RawBuilder<unknown> {
  const rows = words.map(
    (word, pos) =>
      sql`select ${sql.lit(pos)} as pos, cast(${word} as text) as lo, cast(${upperBound(word)} as text) as hi`,
  );
  return sql`(${sql.join(rows, sql` union all `)})`;
}

/** The first text after every text beginning with `prefix`. */
function upperBound(prefix: string): string {
  const last = prefix.codePointAt(prefix.length - 1)!;
  const lastLength = last > 0xffff ? 2 : 1;
  return prefix.slice(0, -lastLength) + String.fromCodePoint(last + 1);
}

/** BM25's saturation of repeated words, as the rules' relevance uses it. */
const K1 = 1.2;

/**
 * `textSearchRelevance` over an area's word index, as the derived table `r (item_id, score)`:
 * the items having every query word, each scored by BM25 without length normalisation (per
 * query word, idf × tf·(k1+1)/(tf+k1), tf the item's words beginning with it, summed). Each
 * word's range of the index is read once, so the work is linear in the words.
 */
export function wordRelevance<Id extends string>(
  studioId: string,
  words: readonly string[],
  index: WordIndex<Id> & { items: keyof Database & string },
): RawBuilder<unknown> {
  const id = sql.ref(`w.${index.id}`);
  return sql`(
    with u as (
      select ${id} as item_id, q.pos, count(*) as tf
      from ${sql.table(index.table)} w join ${queryWords(words)} q on w.word >= q.lo and w.word < q.hi
      where w.studio_id = ${studioId}
      group by ${id}, q.pos
    ),
    df as (select pos, count(*) as df from u group by pos),
    n as (select count(*) as n from ${sql.table(index.items)} where studio_id = ${studioId})
    select u.item_id, sum(
      ln(1 + (n.n - df.df + 0.5) / (df.df + 0.5)) * u.tf * ${sql.lit(K1 + 1)} / (u.tf + ${sql.lit(K1)})
    ) as score
    from u join df on df.pos = u.pos cross join n
    group by u.item_id
    having count(*) = ${sql.lit(words.length)}
  ) r`;
}
