import type { ClusterConnectionSettings } from '../../src/clusters/connection-settings.js';

/** Settings for a SolrCloud at `connectString` with the spec's defaults, except a short connect timeout. */
export function cloudSettings(
  connectString: string,
  overrides: Partial<ClusterConnectionSettings> = {},
): ClusterConnectionSettings {
  return {
    connectString,
    cloud: true,
    zkConnectTimeout: 5000,
    zkClientTimeout: 30_000,
    authConfig: { authType: 'NONE' },
    ...overrides,
  };
}

/** Settings for the standalone Solr node at `baseUrl`. */
export function standaloneSettings(
  baseUrl: string,
  overrides: Partial<ClusterConnectionSettings> = {},
): ClusterConnectionSettings {
  return cloudSettings(baseUrl, { cloud: false, ...overrides });
}
