// What the Rules and Rewrites pages share: the kinds, the calls of the two interfaces on
// the `/studios/{studioId}/…` paths (the same shapes), and how a rule or rewrite is named.
import { csrf, errorOf } from '../../api/client';
import type { components } from '../../api/schema';

export type Rule = components['schemas']['Rule'];
export type Kind = 'rules' | 'rewrites';

export const TYPES: Record<Kind, string[]> = {
  rules: ['blockList', 'boostList', 'buryList', 'pinned', 'redirect', 'banner'],
  rewrites: ['synonym', 'misspelling', 'phrase', 'headTail', 'removeWords'],
};

/** The fields every rule and rewrite has, beside those of its type. */
export const COMMON = new Set([
  'id',
  'externalId',
  'contentType',
  'createdBy',
  'creationDate',
  'lastModifiedBy',
  'lastModified',
  'published',
  'publishState',
  'markedForDeletion',
  'type',
  'name',
  'description',
  'tags',
  'groups',
  'segments',
  'precedence',
  'conditions',
  'deleted',
  'liveContent',
  'conflicts',
  'targetedDocuments',
  'isPendingBulkOperation',
  'platformSyncStatus',
  'fusionSyncStatus',
  'migration',
]);

/** The path of a studio's rules or rewrites. */
export function base(kind: Kind, studio: string): string {
  return `/studios/${encodeURIComponent(studio)}/${kind === 'rules' ? 'em-rules' : 'query-rewrites'}`;
}

/** A call of the Rules or Rewrites API with the session; a refusal throws the common error body. */
export async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf() !== undefined) headers['x-csrf-token'] = csrf()!;
  const answer = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const data = answer.status === 204 ? undefined : await answer.json().catch(() => undefined);
  if (!answer.ok) throw errorOf(data ?? { message: answer.statusText });
  return data;
}

/** What a row is called: a rule's name; a rewrite (which has none) by its own fields. */
export function titleOf(rule: Rule): string {
  if (rule.name) return rule.name;
  const own = kindFields(rule as unknown as Record<string, unknown>);
  return Object.values(own)
    .filter((v) => v !== null && v !== undefined && v !== '')
    .map((v) => (Array.isArray(v) ? v.join(', ') : String(v)))
    .join(' → ');
}

/** The fields of a rule's own type. */
export function kindFields(rule: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(rule).filter(([name]) => !COMMON.has(name)));
}
