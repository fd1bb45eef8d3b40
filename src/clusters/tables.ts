/**
 * One row per search-cluster definition. Booleans are 0/1 on both engines; the secrets
 * (`auth_password`, `auth_key_tab`) are stored sealed by the SecretBox, never in plain text.
 */
export interface SearchClusterTable {
  id: string;
  connect_string: string;
  cloud: number;
  zk_client_timeout: number;
  zk_connect_timeout: number;
  buffer_commit_within: number;
  buffer_flush_interval: number;
  buffer_size: number;
  concurrency: number;
  validate_cluster: number;
  auth_type: string;
  auth_username: string | null;
  auth_password: string | null;
  auth_principal: string | null;
  auth_key_tab: string | null;
  created_at: string;
  updated_at: string;
}
