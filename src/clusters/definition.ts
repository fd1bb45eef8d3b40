import type { FieldError } from '../http/errors.js';
import { solrBaseUrlProblem, zooKeeperConnectStringProblem } from './connect-string.js';
import type { AuthConfig } from './connection-settings.js';
import { type AuthType, clusterDefaults, SECRET_MASK, type SearchClusterInput } from './schemas.js';

export type SecretField = 'password' | 'keyTab';
type AuthField = 'username' | 'password' | 'principal' | 'keyTab';

/** The fields each auth type requires; no other auth field may be given with it. */
const authFields: Record<AuthType, AuthField[]> = {
  NONE: [],
  BASIC: ['username', 'password'],
  KERBEROS: ['principal', 'keyTab'],
};
const secretFields: readonly SecretField[] = ['password', 'keyTab'];

/** A search-cluster definition as the domain sees it: defaults applied, secrets in plain text. */
export interface ClusterDefinition {
  id: string;
  connectString: string;
  cloud: boolean;
  zkClientTimeout: number;
  zkConnectTimeout: number;
  bufferCommitWithin: number;
  bufferFlushInterval: number;
  bufferSize: number;
  concurrency: number;
  validateCluster: boolean;
  authConfig: AuthConfig;
}

/** A definition read from a request: the secrets the request left to keep are missing from it. */
export interface RequestedDefinition {
  definition: ClusterDefinition;
  /** Secrets of the auth type that the request left absent or masked: keep the stored ones. */
  kept: SecretField[];
  /** Every field at fault; the definition is only usable when there is none. */
  errors: FieldError[];
}

/** The secrets an auth type carries. */
export function secretFieldsOf(authType: AuthType): SecretField[] {
  return secretFields.filter((field) => authFields[authType].includes(field));
}

/**
 * Reads a request body (already checked against its schema) into a definition for `id`:
 * defaults applied, shapes and auth fields checked, every field at fault in `errors`.
 */
export function readDefinition(id: string, input: SearchClusterInput): RequestedDefinition {
  const errors: FieldError[] = [];
  if (input.id !== undefined && input.id !== id) {
    errors.push({ field: 'id', message: `id "${input.id}" in the body differs from "${id}" in the path` });
  }
  const cloud = input.cloud ?? clusterDefaults.cloud;
  const shapeProblem = cloud
    ? zooKeeperConnectStringProblem(input.connectString)
    : solrBaseUrlProblem(input.connectString);
  if (shapeProblem) errors.push({ field: 'connectString', message: shapeProblem });
  const auth = input.authConfig ?? { authType: 'NONE' };
  const { authConfig, kept } = readAuthConfig(auth, errors);
  return {
    definition: {
      id,
      connectString: input.connectString,
      cloud,
      zkClientTimeout: input.zkClientTimeout ?? clusterDefaults.zkClientTimeout,
      zkConnectTimeout: input.zkConnectTimeout ?? clusterDefaults.zkConnectTimeout,
      bufferCommitWithin: input.bufferCommitWithin ?? clusterDefaults.bufferCommitWithin,
      bufferFlushInterval: input.bufferFlushInterval ?? clusterDefaults.bufferFlushInterval,
      bufferSize: input.bufferSize ?? clusterDefaults.bufferSize,
      concurrency: input.concurrency ?? clusterDefaults.concurrency,
      validateCluster: input.validateCluster ?? clusterDefaults.validateCluster,
      authConfig,
    },
    kept,
    errors,
  };
}

function readAuthConfig(
  auth: NonNullable<SearchClusterInput['authConfig']>,
  errors: FieldError[],
): { authConfig: AuthConfig; kept: SecretField[] } {
  const { authType } = auth;
  const wanted = authFields[authType];
  const authConfig: AuthConfig = { authType };
  const kept: SecretField[] = [];
  for (const field of ['username', 'password', 'principal', 'keyTab'] as const) {
    const value = auth[field];
    const name = `authConfig.${field}`;
    if (!wanted.includes(field)) {
      if (value !== undefined) {
        errors.push({ field: name, message: `${name} does not apply to authType ${authType}` });
      }
    } else if (isSecret(field) && (value === undefined || value === SECRET_MASK)) {
      kept.push(field);
    } else if (value === undefined) {
      errors.push({ field: name, message: `${name} is required with authType ${authType}` });
    } else {
      const problem = fieldProblem(field, value);
      if (problem) errors.push({ field: name, message: `${name} ${problem}` });
      else authConfig[field] = value;
    }
  }
  return { authConfig, kept };
}

function isSecret(field: AuthField): field is SecretField {
  return (secretFields as readonly string[]).includes(field);
}

// Messages never repeat the value: it may be a secret.
function fieldProblem(field: AuthField, value: string): string | undefined {
  switch (field) {
    case 'username':
      // RFC 7617: the user-id of HTTP Basic cannot contain a colon.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
      return /[:\u0000-\u001f\u007f]/.test(value)
        ? 'must not contain ":" or control characters (HTTP Basic cannot carry them)'
        : undefined;
    case 'principal':
      return /^[^\s@]+(@[^\s@]+)?$/.test(value)
        ? undefined
        : 'must be a Kerberos principal like searchdeck/host@EXAMPLE.COM';
    case 'keyTab':
      return value.startsWith('/') || /^[A-Za-z0-9+/]+={0,2}$/.test(value.replace(/\s+/g, ''))
        ? undefined
        : 'must be the base64 content of a keytab file or an absolute path on the server';
    default:
      return undefined;
  }
}
