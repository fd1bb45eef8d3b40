// The listing's date filters as SQL conditions on named columns, for any area's table.
// Instants are ISO 8601 UTC text with milliseconds, so they compare as text on both engines.
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Range } from './params.js';

/** The column lies within the range (both bounds inclusive, either open). */
export function within(column: string, range: Range): RawBuilder<SqlBool>[] {
  const conditions: RawBuilder<SqlBool>[] = [];
  if (range.start !== undefined) conditions.push(sql<SqlBool>`${sql.ref(column)} >= ${range.start}`);
  if (range.end !== undefined) conditions.push(sql<SqlBool>`${sql.ref(column)} <= ${range.end}`);
  return conditions;
}

/** Effective at some moment of the range: starts before it ends, ends after it starts (null: open). */
export function activeIn(start: string, end: string, range: Range): RawBuilder<SqlBool> {
  const conditions: RawBuilder<SqlBool>[] = [];
  if (range.end !== undefined) {
    conditions.push(sql<SqlBool>`(${sql.ref(start)} is null or ${sql.ref(start)} <= ${range.end})`);
  }
  if (range.start !== undefined) {
    conditions.push(sql<SqlBool>`(${sql.ref(end)} is null or ${sql.ref(end)} >= ${range.start})`);
  }
  return all(conditions);
}

/** Every condition (true when there is none). */
export function all(conditions: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> {
  if (conditions.length === 0) return sql<SqlBool>`1 = 1`;
  return sql<SqlBool>`(${sql.join(conditions, sql` and `)})`;
}

/** The date conditions of the listing's four ranges, on an area's columns. */
export function dateConditions(
  filter: { lastModified?: Range; creationDate?: Range; active?: Range; expiration?: Range },
  columns: {
    lastModified: string;
    creationDate: string;
    published: string;
    staging: { start: string; end: string };
    live: { start: string; end: string };
  },
): RawBuilder<SqlBool>[] {
  const conditions: RawBuilder<SqlBool>[] = [];
  const { lastModified, creationDate, active, expiration } = filter;
  if (lastModified) conditions.push(all(within(columns.lastModified, lastModified)));
  if (creationDate) conditions.push(all(within(columns.creationDate, creationDate)));
  if (active) {
    conditions.push(
      sql<SqlBool>`(${activeIn(columns.staging.start, columns.staging.end, active)} or (${sql.ref(
        columns.published,
      )} = 1 and ${activeIn(columns.live.start, columns.live.end, active)}))`,
    );
  }
  if (expiration) {
    const ends = [columns.staging.end, columns.live.end].map(
      (end) => sql<SqlBool>`(${sql.ref(end)} is not null and ${all(within(end, expiration))})`,
    );
    conditions.push(sql<SqlBool>`(${sql.join(ends, sql` or `)})`);
  }
  return conditions;
}
