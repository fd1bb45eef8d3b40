import type { Kysely } from 'kysely';
import { recordChange } from '../history/service.js';
import { ConflictError, type FieldError, NotFoundError, ValidationError } from '../http/errors.js';
import { removeLinksOf } from '../links/service.js';
import type { SecretBox } from '../security/secret-box.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import type { CheckRecorder } from './check-metrics.js';
import {
  addToApp,
  assertNothingDependsOn,
  clusterIdsInApp,
  clusterObject,
  isInApp,
} from './cluster-links.js';
import { openSecrets, type SealedSecrets, sealSecrets } from './cluster-secrets.js';
import { listCollections } from './collections.js';
import {
  type CheckStep,
  type ClusterNode,
  checkConnectivity,
  KERBEROS_UNSUPPORTED,
  listNodes,
} from './connectivity.js';
import { type ClusterDefinition, readDefinition } from './definition.js';
import { ClusterCheckError, checkFailed } from './errors.js';
import { type LiveNodes, type LiveNodesEvents, openLiveNodes } from './live-nodes.js';
import { connectionSettings, definitionOf, type SearchCluster, toRow, toSearchCluster } from './records.js';
import * as repository from './repository.js';
import type { SearchClusterInput, SolrSystemInfoDocument } from './schemas.js';
import { type NodeSelection, nodeSystemInfo } from './system-info.js';
import type { SearchClusterTable } from './tables.js';

export { clusterObject } from './cluster-links.js';
export type { LiveNodes, LiveNodesEvents, SolrNode } from './live-nodes.js';
export type { SearchCluster } from './records.js';
export type { BasicCredentials } from './solr.js';

/** Where a request comes from: an app's scope (`/api/apps/{app}/…`) or none. */
export interface Scope {
  app?: string | undefined;
}

export interface CheckOptions {
  /** Told of the connectivity check when one runs (metrics). */
  recordCheck?: CheckRecorder | undefined;
}

export interface WriteOptions extends Scope, CheckOptions {
  /** Who makes the change, as the history records it. */
  actor: string;
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
  if (options.validate || definition.validateCluster) {
    await verify(box, definition, sealed, options.recordCheck);
  }
  const now = options.now.toISOString();
  const row = toRow(definition, sealed, stored?.created_at ?? now, now);
  await inTransaction(db, async (trx) => {
    if (mode === 'put') await repository.upsertCluster(trx, row);
    else if (!(await repository.insertCluster(trx, row))) throw exists(id);
    if (options.app !== undefined) await addToApp(trx, id, options.app, options.now);
    await recordChange(trx, {
      actor: options.actor,
      action: stored ? 'update' : 'create',
      object: clusterObject(id),
      summary: `${stored ? 'updated' : 'created'} search cluster ${id}`,
      before: stored && toSearchCluster(stored),
      after: toSearchCluster(row),
      at: options.now,
    });
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
  options: Scope & { force: boolean; actor: string },
): Promise<void> {
  const stored = await visibleRow(db, id, options);
  await inTransaction(db, async (trx) => {
    if (!options.force) await assertNothingDependsOn(trx, id);
    if (!(await repository.deleteCluster(trx, id))) throw notFound(id, options);
    await removeLinksOf(trx, clusterObject(id));
    await recordChange(trx, {
      actor: options.actor,
      action: 'delete',
      object: clusterObject(id),
      summary: `deleted search cluster ${id}`,
      before: toSearchCluster(stored),
    });
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

/** The collections (a standalone Solr's cores) the cluster holds now, sorted; a cluster that cannot be asked is a ClusterCheckError. */
export async function clusterCollections(
  db: Kysely<Database>,
  box: SecretBox,
  id: string,
  scope: Scope = {},
): Promise<string[]> {
  const row = await visibleRow(db, id, scope);
  const definition = definitionOf(row);
  // A cloud's collections are read from ZooKeeper alone; only a standalone node is asked over HTTP.
  const authConfig = definition.cloud ? definition.authConfig : openSecrets(box, definition, row);
  const result = await listCollections(connectionSettings(definition, authConfig));
  if (!result.ok) throw checkFailed(result);
  return result.collections;
}

/**
 * What the cluster's live Solr nodes answer at `/admin/info/system` now: one node's answer
 * (the named one, or the first that answers), or with `all` every live node's by name.
 * An unknown node name is a 404; a cluster that cannot be asked is a ClusterCheckError.
 */
export async function clusterSystemInfo(
  db: Kysely<Database>,
  box: SecretBox,
  id: string,
  selection: NodeSelection,
  scope: Scope = {},
): Promise<SolrSystemInfoDocument | Record<string, SolrSystemInfoDocument>> {
  if (selection.nodeName !== undefined && selection.all) {
    throw new ValidationError(
      [{ field: 'all', message: 'ask for one node (nodeName) or for all of them (all=true), not both' }],
      'invalid-parameter',
    );
  }
  const row = await visibleRow(db, id, scope);
  const definition = definitionOf(row);
  // Before opening anything: the keytab would not be used.
  if (definition.authConfig.authType === 'KERBEROS') {
    throw new ClusterCheckError('not-supported', KERBEROS_UNSUPPORTED, []);
  }
  const settings = connectionSettings(definition, openSecrets(box, definition, row));
  const result = await nodeSystemInfo(settings, selection);
  if ('unknownNode' in result) {
    const shown = result.liveNodes.slice(0, 5).join(', ');
    const more = result.liveNodes.length > 5 ? ` and ${result.liveNodes.length - 5} more` : '';
    throw new NotFoundError(
      `no live Solr node ${result.unknownNode} in search cluster ${id} (live: ${shown}${more})`,
    );
  }
  if (!result.ok) throw checkFailed(result);
  // Only answers with lucene.solr-spec-version count as Solr's (solr.ts), so each fits the schema.
  const documents = result.nodes.map((node) => [node.name, node.document as SolrSystemInfoDocument] as const);
  if (!selection.all) return documents[0]![1];
  return Object.fromEntries(documents);
}

/** Runs the connectivity check of a stored definition now, changing nothing. */
export async function clusterStatus(
  db: Kysely<Database>,
  box: SecretBox,
  id: string,
  options: Scope & CheckOptions = {},
): Promise<ClusterStatus> {
  const row = await visibleRow(db, id, options);
  const steps = await verify(box, definitionOf(row), row, options.recordCheck);
  return { id, ok: true, steps };
}

/** The connectivity check; throws a ClusterCheckError when it does not pass. */
async function verify(
  box: SecretBox,
  definition: ClusterDefinition,
  sealed: SealedSecrets,
  record: CheckRecorder = () => {},
): Promise<CheckStep[]> {
  // Before opening anything: the keytab would not be used.
  if (definition.authConfig.authType === 'KERBEROS') {
    record('not-supported', []);
    throw new ClusterCheckError('not-supported', KERBEROS_UNSUPPORTED, []);
  }
  const result = await checkConnectivity(
    connectionSettings(definition, openSecrets(box, definition, sealed)),
  );
  record(result.ok ? 'ok' : result.code, result.steps);
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

/**
 * The live Solr nodes of a stored definition, kept current until closed (for serving
 * queries), with `updatedAt` so a caller can tell when the definition changed. `signal` gives
 * up an opening still under way (a ZooKeeper that cannot be reached keeps it for up to the
 * cluster's zkConnectTimeout).
 */
export async function openClusterNodes(
  db: Kysely<Database>,
  box: SecretBox,
  id: string,
  events: LiveNodesEvents = {},
  signal?: AbortSignal,
): Promise<{ updatedAt: string; nodes: LiveNodes }> {
  const row = await repository.selectCluster(db, id);
  if (!row) throw new NotFoundError(`no search cluster ${id}`);
  const definition = definitionOf(row);
  const settings = connectionSettings(definition, openSecrets(box, definition, row));
  return { updatedAt: row.updated_at, nodes: await openLiveNodes(settings, events, signal) };
}

/** When each stored definition last changed, by id. */
export async function clusterVersions(db: Kysely<Database>): Promise<Map<string, string>> {
  return new Map((await repository.selectClusterVersions(db)).map((row) => [row.id, row.updated_at]));
}

/** What an import did with one definition. */
export interface ImportedCluster {
  created: boolean;
  /** Secrets its auth type needs that neither the document nor the stored definition has. */
  missingSecrets: string[];
}

/**
 * Writes a definition taken from an exported document (Objects import), in the caller's
 * transaction: created, or replaced when `replace`. A secret the document omits keeps the stored
 * one, or stays unset (named in `missingSecrets`) until a `PUT` gives it; no connectivity check.
 */
export async function importCluster(
  db: Kysely<Database>,
  box: SecretBox,
  input: SearchClusterInput & { id: string },
  options: { replace: boolean; now: Date },
): Promise<ImportedCluster> {
  const { definition, kept, errors } = readDefinition(input.id, input);
  if (errors.length > 0) throw new ValidationError(errors);
  const stored = await repository.selectCluster(db, input.id);
  if (stored && !options.replace) throw exists(input.id);
  const lacking: FieldError[] = [];
  const sealed = sealSecrets(box, definition, kept, stored, lacking);
  const now = options.now.toISOString();
  const row = toRow(definition, sealed, stored?.created_at ?? now, now);
  if (stored) await repository.upsertCluster(db, row);
  else if (!(await repository.insertCluster(db, row))) throw exists(input.id);
  return { created: !stored, missingSecrets: lacking.map((error) => error.field) };
}
