import type { BasicCredentials } from './solr.js';

export type AuthType = 'NONE' | 'BASIC' | 'KERBEROS';

export interface AuthConfig {
  authType: AuthType;
  username?: string;
  password?: string;
  principal?: string;
  keyTab?: string;
}

/** What the connectivity check needs of a search-cluster definition (the service adapts its record to it). */
export interface ClusterConnectionSettings {
  /** Cloud: the ZooKeeper connect string (`host:port[,…][/chroot]`); standalone: the Solr base URL. */
  connectString: string;
  cloud: boolean;
  /** Bounds the whole check, not only the ZooKeeper connect. */
  zkConnectTimeout: number;
  /** The ZooKeeper session timeout asked for. */
  zkClientTimeout: number;
  authConfig: AuthConfig;
}

/** The credentials to send to Solr nodes, if any. */
export function basicCredentials(authConfig: AuthConfig): BasicCredentials | undefined {
  if (authConfig.authType !== 'BASIC') return undefined;
  return { username: authConfig.username ?? '', password: authConfig.password ?? '' };
}
