import type { SealedSecrets } from './cluster-secrets.js';
import type { AuthConfig, ClusterConnectionSettings } from './connection-settings.js';
import type { ClusterDefinition } from './definition.js';
import { type AuthType, SECRET_MASK } from './schemas.js';
import type { SearchClusterTable } from './tables.js';

/** A stored definition as the API answers it: secrets masked, with its timestamps. */
export interface SearchCluster extends Omit<ClusterDefinition, 'authConfig'> {
  authConfig: {
    authType: AuthType;
    username?: string;
    password?: typeof SECRET_MASK;
    principal?: string;
    keyTab?: typeof SECRET_MASK;
  };
  createdAt: string;
  updatedAt: string;
}

/** The row for a definition whose secrets are already sealed. */
export function toRow(
  definition: ClusterDefinition,
  sealed: SealedSecrets,
  createdAt: string,
  updatedAt: string,
): SearchClusterTable {
  const auth = definition.authConfig;
  return {
    id: definition.id,
    connect_string: definition.connectString,
    cloud: definition.cloud ? 1 : 0,
    zk_client_timeout: definition.zkClientTimeout,
    zk_connect_timeout: definition.zkConnectTimeout,
    buffer_commit_within: definition.bufferCommitWithin,
    buffer_flush_interval: definition.bufferFlushInterval,
    buffer_size: definition.bufferSize,
    concurrency: definition.concurrency,
    validate_cluster: definition.validateCluster ? 1 : 0,
    auth_type: auth.authType,
    auth_username: auth.username ?? null,
    auth_principal: auth.principal ?? null,
    ...sealed,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

/** The definition a row holds, without its secrets (they stay sealed in the row). */
export function definitionOf(row: SearchClusterTable): ClusterDefinition {
  const authConfig: AuthConfig = { authType: row.auth_type as AuthType };
  if (row.auth_username !== null) authConfig.username = row.auth_username;
  if (row.auth_principal !== null) authConfig.principal = row.auth_principal;
  return {
    id: row.id,
    connectString: row.connect_string,
    cloud: row.cloud === 1,
    zkClientTimeout: row.zk_client_timeout,
    zkConnectTimeout: row.zk_connect_timeout,
    bufferCommitWithin: row.buffer_commit_within,
    bufferFlushInterval: row.buffer_flush_interval,
    bufferSize: row.buffer_size,
    concurrency: row.concurrency,
    validateCluster: row.validate_cluster === 1,
    authConfig,
  };
}

/** A row as the API answers it: every secret that is set shows as the mask. */
export function toSearchCluster(row: SearchClusterTable): SearchCluster {
  const { authConfig, ...definition } = definitionOf(row);
  const masked: SearchCluster['authConfig'] = { authType: authConfig.authType };
  if (authConfig.username !== undefined) masked.username = authConfig.username;
  if (row.auth_password !== null) masked.password = SECRET_MASK;
  if (authConfig.principal !== undefined) masked.principal = authConfig.principal;
  if (row.auth_key_tab !== null) masked.keyTab = SECRET_MASK;
  return { ...definition, authConfig: masked, createdAt: row.created_at, updatedAt: row.updated_at };
}

/** What the connectivity check needs of a definition (with its secrets opened). */
export function connectionSettings(
  definition: ClusterDefinition,
  authConfig: AuthConfig,
): ClusterConnectionSettings {
  return {
    connectString: definition.connectString,
    cloud: definition.cloud,
    zkConnectTimeout: definition.zkConnectTimeout,
    zkClientTimeout: definition.zkClientTimeout,
    authConfig,
  };
}
