import type { Kysely, Migration } from 'kysely';
import type { Engine } from '../database.js';
import * as foundation from './0001_foundation.js';
import * as links from './0002_links.js';
import * as searchClusters from './0100_search_clusters.js';
import * as jobLease from './0201_job_lease.js';
import * as typeahead from './0202_typeahead.js';
import * as rules from './0301_rules.js';
import * as ruleBulkHeartbeat from './0302_rule_bulk_heartbeat.js';
import * as studioIncarnation from './0303_studio_incarnation.js';

type MigrationModule = { up(db: Kysely<unknown>, engine: Engine): Promise<void> };

/** All migrations, in order. Forward-only: a released migration is never edited, only followed. */
const modules: Array<[string, MigrationModule]> = [
  ['0001_foundation', foundation],
  ['0002_links', links],
  ['0100_search_clusters', searchClusters],
  ['0201_job_lease', jobLease],
  ['0202_typeahead', typeahead],
  ['0301_rules', rules],
  ['0302_rule_bulk_heartbeat', ruleBulkHeartbeat],
  ['0303_studio_incarnation', studioIncarnation],
];

export function migrationsFor(engine: Engine): Record<string, Migration> {
  return Object.fromEntries(
    modules.map(([name, m]) => [name, { up: (db: Kysely<unknown>) => m.up(db, engine) }]),
  );
}
