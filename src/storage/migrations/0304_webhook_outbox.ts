import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/**
 * The outbox of rule sync: one row per delivery to a studio's sync targets, written in the
 * transaction of the change it announces and sent later by whichever node claims it, so a
 * delivery outlives the node that made it. Beside it, the signing secret of each sync target
 * (sealed). Targets set before this migration have none until one is rotated in: the
 * migration cannot seal (the secret key is not a migration's) and nobody would see it.
 * Versions a node had left to retry in memory become rows, so no change goes undelivered.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_delivery')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('studio_id', 'text', (c) => c.notNull().references('studio.id').onDelete('cascade'))
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  // What a sender looks for: the pending rows that are due.
  await db.schema
    .createIndex('webhook_delivery_due')
    .on('webhook_delivery')
    .columns(['status', 'next_attempt_at'])
    .execute();
  // What the deliveries listing reads: a studio's rows, newest first.
  await db.schema
    .createIndex('webhook_delivery_by_studio')
    .on('webhook_delivery')
    .columns(['studio_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createTable('studio_sync_target_secret')
    .addColumn('studio_id', 'text', (c) => c.notNull().references('studio.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('studio_sync_target_secret_pk', ['studio_id', 'url'])
    .execute();
  await enqueueUndelivered(db);
}

/**
 * Outbox rows for the content versions that neither reached the targets nor finally failed,
 * as the in-memory retries of the version before this one left them (a restart resent them).
 */
export async function enqueueUndelivered(db: Kysely<unknown>): Promise<void> {
  const pending = (column: string) =>
    sql.raw(`${column}_version > coalesce(${column}_synced_version, 0)
      and ${column}_version > coalesce(${column}_failed_version, 0)`);
  const { rows } = await sql<{ id: string; studio_id: string; staging: number; live: number }>`
    select rule.id, rule.studio_id,
      case when ${pending('staging')} then 1 else 0 end as staging,
      case when live_version > 0 and ${pending('live')} then 1 else 0 end as live
    from rule join studio on studio.id = rule.studio_id
    where studio.sync_targets <> '[]' and ((${pending('staging')}) or (live_version > 0 and ${pending('live')}))`.execute(
    db,
  );
  const now = new Date().toISOString();
  const outbox = db as Kysely<{ webhook_delivery: Record<string, string | number | null> }>;
  for (const row of rows) {
    for (const stage of ['staging', 'live'] as const) {
      if (Number(row[stage]) !== 1) continue;
      await outbox
        .insertInto('webhook_delivery')
        .values({
          id: randomUUID(),
          studio_id: row.studio_id,
          rule_id: row.id,
          event: 'rule.changed',
          stage,
          status: 'PENDING',
          attempts: 0,
          next_attempt_at: now,
          claimed_by: null,
          last_error: null,
          created_at: now,
          finished_at: null,
        })
        .execute();
    }
  }
}
