import { type Kysely, sql } from 'kysely';
import { toStoredRule } from '../../rules/rule-rows.js';
import { insertTextEntries } from '../../rules/text-index-repository.js';
import type { Engine } from '../database.js';
import type { Database } from '../schema.js';

// Rules read per step of the backfill.
const BACKFILL_ROWS = 1_000;

/**
 * The rules' full-text index (SQLite FTS5, PostgreSQL tsvector with a GIN index) and a
 * per-studio rule count kept by triggers, both filled for the rules there already.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  if (engine === 'postgres') {
    await sql`create table rule_search (
      rule_id text primary key references rule(id) on delete cascade,
      studio_id text not null,
      doc tsvector not null)`.execute(db);
    await sql`create index rule_search_doc on rule_search using gin (doc)`.execute(db);
    await sql`create table rule_count (
      studio_id text primary key references studio(id) on delete cascade,
      rules integer not null)`.execute(db);
    // Per statement, over the rows it changed: a bulk insert updates each studio's count once.
    await sql`create function rule_count_added() returns trigger language plpgsql as $$
      begin
        insert into rule_count (studio_id, rules)
          select studio_id, count(*) from added group by studio_id order by studio_id
          on conflict (studio_id) do update set rules = rule_count.rules + excluded.rules;
        return null;
      end $$`.execute(db);
    await sql`create function rule_count_removed() returns trigger language plpgsql as $$
      begin
        update rule_count c set rules = c.rules - r.n
          from (select studio_id, count(*) as n from removed group by studio_id order by studio_id) r
          where c.studio_id = r.studio_id;
        return null;
      end $$`.execute(db);
    await sql`create trigger rule_counted after insert on rule referencing new table as added
      for each statement execute function rule_count_added()`.execute(db);
    await sql`create trigger rule_uncounted after delete on rule referencing old table as removed
      for each statement execute function rule_count_removed()`.execute(db);
  } else {
    await sql`create table rule_search (
      doc integer primary key,
      rule_id text not null unique references rule(id) on delete cascade,
      studio_id text not null)`.execute(db);
    // Words arrive already cut and folded (search-words.ts), joined by spaces: the ascii
    // tokenizer splits them back as they are, where unicode61 would fold them its own way.
    await sql`create virtual table rule_text using fts5(
      name, description, tags, queries, vals, tokenize = 'ascii', detail = 'column')`.execute(db);
    await sql`create trigger rule_search_removed after delete on rule_search begin
      delete from rule_text where rowid = old.doc;
    end`.execute(db);
    await sql`create table rule_count (
      studio_id text primary key references studio(id) on delete cascade,
      rules integer not null)`.execute(db);
    await sql`create trigger rule_counted after insert on rule begin
      insert or ignore into rule_count (studio_id, rules) values (new.studio_id, 0);
      update rule_count set rules = rules + 1 where studio_id = new.studio_id;
    end`.execute(db);
    await sql`create trigger rule_uncounted after delete on rule begin
      update rule_count set rules = rules - 1 where studio_id = old.studio_id;
    end`.execute(db);
  }
  await backfill(db as Kysely<Database>);
}

/** Fills the count and the text index from the rules already there (exported for its test). */
export async function backfill(db: Kysely<Database>): Promise<void> {
  await sql`insert into rule_count (studio_id, rules)
    select studio_id, count(*) from rule group by studio_id`.execute(db);
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('rule')
      .selectAll()
      .where('id', '>', after)
      .orderBy('id')
      .limit(BACKFILL_ROWS)
      .execute();
    if (rows.length === 0) return;
    await insertTextEntries(
      db,
      rows.map((row) => toStoredRule(row).rule),
    );
    after = rows[rows.length - 1]!.id;
  }
}
