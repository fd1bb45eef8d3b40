import type { FieldError } from '../http/errors.js';
import type { SecretBox } from '../security/secret-box.js';
import type { AuthConfig } from './connection-settings.js';
import { type ClusterDefinition, type SecretField, secretFieldsOf } from './definition.js';
import type { SearchClusterTable } from './tables.js';

/** The sealed secrets of a row, as stored. */
export type SealedSecrets = Pick<SearchClusterTable, 'auth_password' | 'auth_key_tab'>;

const column = { password: 'auth_password', keyTab: 'auth_key_tab' } as const;

/** What a sealed secret is bound to: its record and field, so it opens nowhere else. */
function secretContext(id: string, field: SecretField): string {
  return `search-cluster:${id}#${field}`;
}

/**
 * The secrets to store for `definition`: the given ones sealed, the `kept` ones as `stored`
 * has them. A kept secret with nothing stored to keep is added to `errors`.
 */
export function sealSecrets(
  box: SecretBox,
  definition: ClusterDefinition,
  kept: SecretField[],
  stored: SealedSecrets | undefined,
  errors: FieldError[],
): SealedSecrets {
  const sealed: SealedSecrets = { auth_password: null, auth_key_tab: null };
  const { authType } = definition.authConfig;
  for (const field of secretFieldsOf(authType)) {
    const given = definition.authConfig[field];
    if (!kept.includes(field) && given !== undefined) {
      sealed[column[field]] = box.seal(given, secretContext(definition.id, field));
      continue;
    }
    const keep = stored?.[column[field]] ?? null;
    if (keep === null) {
      const why = stored ? `: search cluster ${definition.id} has no stored ${field} to keep` : '';
      errors.push({
        field: `authConfig.${field}`,
        message: `authConfig.${field} is required with authType ${authType}${why}`,
      });
    }
    sealed[column[field]] = keep;
  }
  return sealed;
}

/** The auth config with the secrets of `sealed` opened in place of absent ones (for talking to Solr). */
export function openSecrets(
  box: SecretBox,
  definition: ClusterDefinition,
  sealed: SealedSecrets,
): AuthConfig {
  const authConfig = { ...definition.authConfig };
  for (const field of secretFieldsOf(authConfig.authType)) {
    const value = sealed[column[field]];
    if (authConfig[field] === undefined && value !== null) {
      authConfig[field] = box.open(value, secretContext(definition.id, field));
    }
  }
  return authConfig;
}
