// The signing secrets of a studio's sync targets: made when a target is set (shown once,
// in that answer), sealed for storage, opened only to sign a delivery.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SecretBox } from '../security/secret-box.js';
import type { Database } from '../storage/schema.js';
import {
  deleteSyncTargetSecretsExcept,
  selectStudio,
  selectSyncTargetSecrets,
  upsertSyncTargetSecrets,
} from './repository.js';

/** A target with its secret in the clear: only ever in the answer that made it. */
export interface TargetSecret {
  url: string;
  secret: string;
}

/** A sync target as a delivery needs it: its URL, and its secret when it has one. */
export interface SyncTarget {
  url: string;
  secret: string | undefined;
}

/** What a sealed secret is bound to: its studio and target, so it opens nowhere else. */
function secretContext(studioId: string, url: string): string {
  return `studio:${studioId}#syncTarget:${url}`;
}

/** A new secret in the Standard Webhooks form: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Gives the targets that have no secret yet (or all `targets` when `rotate`) a new one,
 * and drops the secrets of targets no longer set. Answers the new secrets in the clear.
 */
export async function issueSecrets(
  db: Kysely<Database>,
  box: SecretBox,
  studioId: string,
  targets: string[],
  now: Date,
  rotate: boolean,
): Promise<TargetSecret[]> {
  await deleteSyncTargetSecretsExcept(db, studioId, targets);
  const existing = new Set((await selectSyncTargetSecrets(db, studioId)).map((row) => row.url));
  const issued = targets
    .filter((url) => rotate || !existing.has(url))
    .map((url) => ({ url, secret: newWebhookSecret() }));
  await upsertSyncTargetSecrets(
    db,
    issued.map(({ url, secret }) => ({
      studio_id: studioId,
      url,
      secret: box.seal(secret, secretContext(studioId, url)),
      created_at: now.toISOString(),
    })),
  );
  return issued;
}

/** A studio's sync targets with their secrets opened; none when there is no such studio. */
export async function syncTargetsWithSecrets(
  db: Kysely<Database>,
  box: SecretBox,
  studioId: string,
): Promise<SyncTarget[]> {
  const row = await selectStudio(db, studioId);
  if (!row) return [];
  const sealed = new Map((await selectSyncTargetSecrets(db, studioId)).map((r) => [r.url, r.secret]));
  return (JSON.parse(row.sync_targets) as string[]).map((url) => {
    const secret = sealed.get(url);
    return { url, secret: secret === undefined ? undefined : box.open(secret, secretContext(studioId, url)) };
  });
}
