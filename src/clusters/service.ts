import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError, ValidationError } from '../http/errors.js';
import { removeLinksOf } from '../links/service.js';
import type { SecretBox } from '../security/secret-box.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import {
  addToApp,
  assertNothingDependsOn,
  clusterIdsInApp,
  clusterObject,
  isInApp,
} from './cluster-links.js';
import { openSecrets, type SealedSecrets, sealSecrets } from './cluster-secrets.js';
import {
  type CheckStep,
  type ClusterNode,
  checkConnectivity,
  KERBEROS_UNSUPPORTED,
  listNodes,
} from './connectivity.js';
import { type ClusterDefinition, readDefinition } from './definition.js';
import { ClusterCheckError, checkFailed } from './errors.js';
import { connectionSettings, definitionOf, type SearchCluster, toRow, toSearchCluster } from './records.js';
import * as repository from './repository.js';
import type { SearchClusterInput } from './schemas.js';
import type { SearchClusterTable } from './tables.js';

export { clusterObject } from './cluster-links.js';
export type { SearchCluster } from './records.js';

/** Where a request comes from: an app's scope (`/api/apps/{app}/…`) or none. */
export interface Scope {
  app?: string | undefined;
}

export interface WriteOptions extends Scope {
  /** Run the connectivity check first (`?validate=true`); the body's `validateCluster` also asks for it. */
  validate: boolean;
  now: Date;
}

export interface ClusterStatus {
  id: string;
  ok: true;
  steps: CheckStep[];
}

/** Every definition, or in an app's scope those in that app's context. */
export async function listClusters(db: Kysely<Database>, scope: Scope = {}): Promise<SearchCluster[]> {
  const rows =
    scope.app === undefined
      ? await repository.selectClusters(db)
      : await repository.selectClustersById(db, await clusterIdsInApp(db, scope.app));
  return rows.map(toSearchCluster);
}

/** One definition; 404 when absent, or outside the app of the scope. */
export async function getCluster(
  db: Kysely<Database>,
  id: string,
  scope: Scope = {},
): Promise<SearchCluster> {
  return toSearchCluster(await visibleRow(db, id, scope));
}

/** Creates a definition (`POST`); 409 when the id is taken. */
export function createCluster(
  db: Kysely<Database>,
  box: SecretBox,
  input: SearchClusterInput & { id: string },
  options: WriteOptions,
): Promise<SearchCluster> {
  return writeCluster(db, box, input.id, input, 'create', options);
}

/** Creates or replaces a definition (`PUT`); an absent or masked secret keeps the stored one. */
export function putCluster(
  db: Kysely<Database>,
  box: SecretBox,
  id: string,
  input: SearchClusterInput,
  options: WriteOptions,
): Promise<SearchCluster> {
  return writeCluster(db, box, id, input, 'put', options);
}

async function writeCluster(
  db: Kysely<Database>,
  box: SecretBox,
  id: string,
  input: SearchClusterInput,
  mode: 'create' | 'put',
  options: WriteOptions,
): Promise<SearchCluster> {
  const { definition, kept, errors } = readDefinition(id, input);
  const stored = await repository.selectCluster(db, id);
  const sealed = sealSecrets(box, definition, kept, stored, errors);
  if (errors.length > 0) throw new ValidationError(errors);
  if (stored && mode === 'create') throw exists(id);
  // Ids are global: one taken outside the app cannot be created in it, nor replaced from it.
  if (stored && options.app !== undefined && !(await isInApp(db, id, options.app))) {
    throw new ConflictError(`search cluster ${id} exists already, outside app ${options.app}`);
  }
  if (options.validate || definition.validateCluster) await verify(box, definition, sealed);
  const now = options.now.toISOString();
  const row = toRow(definition, sealed, stored?.created_at ?? now, now);
  await inTransaction(db, async (trx) => {
    if (mode === 'put') await repository.upsertCluster(trx, row);
    else if (!(await repository.insertCluster(trx, row))) throw exists(id);
    if (options.app !== undefined) await addToApp(trx, id, options.app, options.now);
  });
  return toSearchCluster(row);
}

/**
 * Deletes a definition and its links; 409 naming the dependants while something `dependsOn`
 * it, unless `force`.
 */
export async function deleteCluster(
  db: Kysely<Database>,
  id: string,
  options: Scope & { force: boolean },
): Promise<void> {
  await visibleRow(db, id, options);
  await inTransaction(db, async (trx) => {
    if (!options.force) await assertNothingDependsOn(trx, id);
    if (!(await repository.deleteCluster(trx, id))) throw notFound(id, options);
    await removeLinksOf(trx, clusterObject(id));
  });
}

/** The cluster's Solr nodes as it reports them now; a cluster that cannot be asked is a ClusterCheckError. */
export async function clusterNodes(
  db: Kysely<Database>,
  box: SecretBox,
  id: string,
  scope: Scope = {},
): Promise<ClusterNode[]> {
  const row = await visibleRow(db, id, scope);
  const definition = definitionOf(row);
  // Only a standalone node is asked over HTTP; a cloud's nodes are read from ZooKeeper alone.
  const authConfig = definition.cloud ? definition.authConfig : openSecrets(box, definition, row);
  const result = await listNodes(connectionSettings(definition, authConfig));
  if (!result.ok) throw checkFailed(result);
  return result.nodes;
}

/** Runs the connectivity check of a stored definition now, changing nothing. */
export async function clusterStatus(
  db: Kysely<Database>,
  box: SecretBox,
  id: string,
  scope: Scope = {},
): Promise<ClusterStatus> {
  const row = await visibleRow(db, id, scope);
  const steps = await verify(box, definitionOf(row), row);
  return { id, ok: true, steps };
}

/** The connectivity check; throws a ClusterCheckError when it does not pass. */
async function verify(
  box: SecretBox,
  definition: ClusterDefinition,
  sealed: SealedSecrets,
): Promise<CheckStep[]> {
  // Before opening anything: the keytab would not be used.
  if (definition.authConfig.authType === 'KERBEROS') {
    throw new ClusterCheckError('not-supported', KERBEROS_UNSUPPORTED, []);
  }
  const result = await checkConnectivity(
    connectionSettings(definition, openSecrets(box, definition, sealed)),
  );
  if (!result.ok) throw checkFailed(result);
  return result.steps;
}

async function visibleRow(db: Kysely<Database>, id: string, scope: Scope): Promise<SearchClusterTable> {
  const row = await repository.selectCluster(db, id);
  if (!row || (scope.app !== undefined && !(await isInApp(db, id, scope.app)))) throw notFound(id, scope);
  return row;
}

function exists(id: string): ConflictError {
  return ConflictError.taken('id', `a search cluster with id ${id} exists already`);
}

function notFound(id: string, scope: Scope): NotFoundError {
  return new NotFoundError(
    scope.app === undefined ? `no search cluster ${id}` : `no search cluster ${id} in app ${scope.app}`,
  );
}
