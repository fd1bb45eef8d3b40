import type { SearchClusterTable } from '../clusters/tables.js';
import type { LinkTable } from '../links/tables.js';
import type { RuleBulkOperationTable, RuleFacetTable, RuleTable, RuleWordTable } from '../rules/tables.js';
import type { StudioClientTable, StudioTable } from '../studios/tables.js';
import type {
  TypeaheadInstanceTable,
  TypeaheadSearchCountTable,
  TypeaheadSearchFormTable,
  TypeaheadTermTable,
  TypeaheadTopTermTable,
} from '../typeahead/tables.js';
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
  rule_bulk_operation: RuleBulkOperationTable;
}
