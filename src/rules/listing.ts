// The rules listing: parameters in, one page of rules with totals out.
import type { Kysely } from 'kysely';
import { type Page, pageOf } from '../listing/page.js';
import type { Database } from '../storage/schema.js';
import { parseFields, parseListing } from './listing-params.js';
import { queryListing } from './listing-repository.js';
import { extrasOf, presentRule } from './presentation.js';
import { toStoredRule } from './rule-rows.js';
import type { ListingQuery, RuleResponse } from './schemas.js';

export type RulePage = Page<RuleResponse>;

/** `GET /em-rules`: checks the parameters, asks the database for the page, adds the extras. */
export async function listRules(
  db: Kysely<Database>,
  studioId: string,
  query: ListingQuery,
): Promise<RulePage> {
  const params = parseListing(query);
  const fields = parseFields(query);
  const { rows, total } = await queryListing(db, studioId, params);
  const rules = rows.map(toStoredRule);
  const extras = await extrasOf(db, studioId, rules, fields);
  const content = rules.map((stored) => presentRule(stored, extras.get(stored.rule.id)));
  return pageOf(content, params.page, params.size, total);
}
