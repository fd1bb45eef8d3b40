import type { Kysely, Migration } from 'kysely';
import type { Engine } from '../database.js';
import * as foundation from './0001_foundation.js';
import * as links from './0002_links.js';
import * as attemptWindow from './0003_attempt_window.js';
import * as linkAppEnds from './0004_link_app_ends.js';
import * as attemptWindowRetryAt from './0005_attempt_window_retry_at.js';
import * as searchClusters from './0100_search_clusters.js';
import * as clusterCommitWithin from './0101_search_cluster_commit_within.js';
import * as jobLease from './0201_job_lease.js';
import * as typeahead from './0202_typeahead.js';
import * as typeaheadMinHits from './0203_typeahead_min_hits.js';
import * as rules from './0301_rules.js';
import * as ruleBulkHeartbeat from './0302_rule_bulk_heartbeat.js';
import * as studioIncarnation from './0303_studio_incarnation.js';
import * as webhookOutbox from './0304_webhook_outbox.js';
import * as queryRewrites from './0401_query_rewrites.js';
import * as ruleLiveVersion from './0402_rule_live_version.js';
import * as ruleTextSearch from './0403_rule_text_search.js';
import * as history from './0501_history.js';
import * as queryProfiles from './0502_query_profiles.js';
import * as signals from './0601_signals.js';
import * as analyticsRollups from './0602_analytics_rollups.js';
import * as searchSignalByQuery from './0603_search_signal_by_query.js';
import * as searchSignalVariant from './0604_search_signal_variant.js';
import * as experiments from './0701_experiments.js';
import * as variantRollups from './0702_variant_rollups.js';
import * as users from './0901_users.js';
import * as userKnownClient from './0902_user_known_client.js';
import * as analyticsDayVersion from './0903_analytics_day_version.js';
import * as searchSignalByUnit from './0904_search_signal_by_unit.js';
import * as dropSearchSignalByUnit from './0905_drop_search_signal_by_unit.js';

type MigrationModule = { up(db: Kysely<unknown>, engine: Engine): Promise<void> };

/** All migrations, in order. Forward-only: a released migration is never edited, only followed. */
const modules: Array<[string, MigrationModule]> = [
  ['0001_foundation', foundation],
  ['0002_links', links],
  ['0003_attempt_window', attemptWindow],
  ['0004_link_app_ends', linkAppEnds],
  ['0005_attempt_window_retry_at', attemptWindowRetryAt],
  ['0100_search_clusters', searchClusters],
  ['0101_search_cluster_commit_within', clusterCommitWithin],
  ['0201_job_lease', jobLease],
  ['0202_typeahead', typeahead],
  ['0203_typeahead_min_hits', typeaheadMinHits],
  ['0301_rules', rules],
  ['0302_rule_bulk_heartbeat', ruleBulkHeartbeat],
  ['0303_studio_incarnation', studioIncarnation],
  ['0304_webhook_outbox', webhookOutbox],
  ['0401_query_rewrites', queryRewrites],
  ['0402_rule_live_version', ruleLiveVersion],
  ['0403_rule_text_search', ruleTextSearch],
  ['0501_history', history],
  ['0502_query_profiles', queryProfiles],
  ['0601_signals', signals],
  ['0602_analytics_rollups', analyticsRollups],
  ['0603_search_signal_by_query', searchSignalByQuery],
  ['0604_search_signal_variant', searchSignalVariant],
  ['0701_experiments', experiments],
  ['0702_variant_rollups', variantRollups],
  ['0901_users', users],
  ['0902_user_known_client', userKnownClient],
  ['0903_analytics_day_version', analyticsDayVersion],
  ['0904_search_signal_by_unit', searchSignalByUnit],
  ['0905_drop_search_signal_by_unit', dropSearchSignalByUnit],
];

export function migrationsFor(engine: Engine): Record<string, Migration> {
  return Object.fromEntries(
    modules.map(([name, m]) => [name, { up: (db: Kysely<unknown>) => m.up(db, engine) }]),
  );
}
