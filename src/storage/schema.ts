import type {
  AnalyticsDayTable,
  AnalyticsDayVersionTable,
  AnalyticsDirtyHourTable,
  AnalyticsHourTable,
  AnalyticsRollupStateTable,
} from '../analytics/tables.js';
import type { SearchClusterTable } from '../clusters/tables.js';
import type { RuleLiveVersionTable } from '../evaluation/tables.js';
import type { ExperimentTable } from '../experiments/tables.js';
import type { HistoryEventTable } from '../history/tables.js';
import type { AttemptWindowTable } from '../http/tables.js';
import type { LinkTable } from '../links/tables.js';
import type { QueryKeyTable, QueryProfileTable } from '../query/tables.js';
import type {
  QueryRewritePublishTable,
  QueryRewriteTable,
  QueryRewriteWordTable,
} from '../rewrites/tables.js';
import type {
  RuleBulkOperationTable,
  RuleCountTable,
  RuleFacetTable,
  RuleSearchTable,
  RuleTable,
  RuleWordTable,
  WebhookDeliveryTable,
} from '../rules/tables.js';
import type { SearchSignalTable, SignalTable } from '../signals/tables.js';
import type { StudioClientTable, StudioSyncTargetSecretTable, StudioTable } from '../studios/tables.js';
import type {
  TypeaheadInstanceTable,
  TypeaheadSearchCountTable,
  TypeaheadSearchFormTable,
  TypeaheadTermTable,
  TypeaheadTopTermTable,
} from '../typeahead/tables.js';
import type { AppUserTable, UserKnownClientTable, UserSessionTable } from '../users/tables.js';
import type { JobLeaseTable } from './lease-repository.js';

/** Key/value settings of the service itself (the admin password hash, …). */
export interface SettingTable {
  name: string;
  value: string;
}

/** Every table of the service, as Kysely sees it; each area declares its own in `<area>/tables.ts`. */
export interface Database {
  setting: SettingTable;
  link: LinkTable;
  search_cluster: SearchClusterTable;
  job_lease: JobLeaseTable;
  attempt_window: AttemptWindowTable;
  typeahead_instance: TypeaheadInstanceTable;
  typeahead_term: TypeaheadTermTable;
  typeahead_top_term: TypeaheadTopTermTable;
  typeahead_search_count: TypeaheadSearchCountTable;
  typeahead_search_form: TypeaheadSearchFormTable;
  studio: StudioTable;
  studio_client: StudioClientTable;
  rule: RuleTable;
  rule_facet: RuleFacetTable;
  rule_word: RuleWordTable;
  rule_search: RuleSearchTable;
  rule_count: RuleCountTable;
  rule_bulk_operation: RuleBulkOperationTable;
  query_rewrite: QueryRewriteTable;
  query_rewrite_word: QueryRewriteWordTable;
  query_rewrite_publish: QueryRewritePublishTable;
  query_profile: QueryProfileTable;
  query_key: QueryKeyTable;
  experiment: ExperimentTable;
  webhook_delivery: WebhookDeliveryTable;
  studio_sync_target_secret: StudioSyncTargetSecretTable;
  rule_live_version: RuleLiveVersionTable;
  history_event: HistoryEventTable;
  app_user: AppUserTable;
  user_session: UserSessionTable;
  user_known_client: UserKnownClientTable;
  search_signal: SearchSignalTable;
  signal: SignalTable;
  analytics_hour: AnalyticsHourTable;
  analytics_day: AnalyticsDayTable;
  analytics_day_version: AnalyticsDayVersionTable;
  analytics_dirty_hour: AnalyticsDirtyHourTable;
  analytics_rollup_state: AnalyticsRollupStateTable;
}
