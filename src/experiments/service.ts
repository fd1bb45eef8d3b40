// Experiments: app-scoped A/B tests a query profile runs (the profile names it). Written and
// read here, checked before anything is stored, frozen while they run (except `enabled`), and
// promoted: the winning variant becomes the profile's defaults and studio in one transaction.
import type { Kysely } from 'kysely';
import { SYSTEM_ACTOR } from '../history/actor.js';
import { recordChange } from '../history/service.js';
import { ConflictError, type FieldError, NotFoundError, ValidationError } from '../http/errors.js';
import { listProfiles, promoteVariant } from '../query/profiles.js';
import { hiddenConstruct, isForbiddenParam } from '../query/shopper-params.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import { holdStudio, type StudioUsers } from '../studios/service.js';
import { type ServedExperiment, servedExperiment } from './assignment.js';
import * as repository from './repository.js';
import { type Experiment, type ExperimentBody, METRIC_TYPES, type StoredExperiment } from './schemas.js';
import type { ExperimentTable } from './tables.js';

/** The parameter that assigns a shopper when the experiment names none: searchdeck's user parameter. */
export const DEFAULT_UNIQUE_ID_PARAMETER = 'user_id';
/** The query endpoint's own parameters: none of them can assign a shopper. */
const ENDPOINT_PARAMS = new Set(['q', 'segment', 'staging']);

type Settings = Omit<StoredExperiment, 'id' | 'createdAt' | 'updatedAt'>;

/** An experiment's name as an end of links and in the history. */
export function experimentObject(app: string, id: string): string {
  return `experiment:${app}/${id}`;
}

/** Whether shoppers are assigned to the experiment's variants at `now` (epoch ms). */
export function isRunning(
  experiment: Pick<StoredExperiment, 'enabled' | 'startTimestamp' | 'endTimestamp'>,
  now: number,
): boolean {
  if (!experiment.enabled) return false;
  if (experiment.startTimestamp !== undefined && now < Date.parse(experiment.startTimestamp)) return false;
  return experiment.endTimestamp === undefined || now < Date.parse(experiment.endTimestamp);
}

/** The stored experiment, without what depends on the moment it is read. */
export function toStoredExperiment(row: ExperimentTable): StoredExperiment {
  const settings = JSON.parse(row.settings) as Settings;
  return { id: row.id, ...settings, createdAt: row.created_at, updatedAt: row.updated_at };
}

function toExperiment(row: ExperimentTable, now: Date): Experiment {
  const stored = toStoredExperiment(row);
  return { ...stored, running: isRunning(stored, now.getTime()) };
}

export async function listExperiments(db: Kysely<Database>, app: string, now: Date): Promise<Experiment[]> {
  return (await repository.selectExperiments(db, app)).map((row) => toExperiment(row, now));
}

export async function getExperiment(
  db: Kysely<Database>,
  app: string,
  id: string,
  now: Date,
): Promise<Experiment> {
  const row = await repository.selectExperiment(db, app, id);
  if (!row) throw notFound(app, id);
  return toExperiment(row, now);
}

/** Every app's experiments as the query path serves them, by `app\0id`. */
export async function allServedExperiments(db: Kysely<Database>): Promise<Map<string, ServedExperiment>> {
  const served = new Map<string, ServedExperiment>();
  for (const row of await repository.selectAllExperiments(db))
    served.set(`${row.app}\u0000${row.id}`, servedExperiment(row));
  return served;
}

/** The experiments with a variant that names a studio (any experiment: a stopped one may run again). */
export const experimentsUsingStudio: StudioUsers = {
  async usersOf(db, studioId) {
    return (await repository.selectAllExperiments(db))
      .filter((row) => toStoredExperiment(row).variants.some((variant) => variant.studio === studioId))
      .map((row) => `experiment ${row.app}/${row.id}`);
  },
};

export async function experimentExists(db: Kysely<Database>, app: string, id: string): Promise<boolean> {
  return (await repository.selectExperiment(db, app, id)) !== undefined;
}

/** Creates (`create`) or creates-or-replaces (`put`) an experiment, with its history event. */
export async function writeExperiment(
  db: Kysely<Database>,
  app: string,
  id: string,
  body: ExperimentBody,
  mode: 'create' | 'put',
  now: Date,
  actor: string = SYSTEM_ACTOR,
): Promise<Experiment> {
  const at = now.toISOString();
  return inTransaction(db, async (trx) => {
    // Checked in the transaction that writes: a studio's delete at the same moment either
    // waits for this commit and finds the experiment, or comes first and fails the check.
    await checkBody(trx, body);
    const storedRow = await repository.selectExperiment(trx, app, id);
    if (storedRow && mode === 'create')
      throw ConflictError.taken('id', `an experiment with id ${id} exists already in app ${app}`);
    const stored = storedRow && toStoredExperiment(storedRow);
    const settings = settingsOf(body, stored, at);
    if (stored && isRunning(stored, now.getTime()) && changedBesidesEnabled(stored, settings)) {
      throw new ConflictError(
        `experiment ${id} is running: stop it (enabled: false) before changing anything but enabled`,
      );
    }
    const row: ExperimentTable = {
      app,
      id,
      settings: JSON.stringify(settings),
      created_at: storedRow?.created_at ?? at,
      updated_at: at,
    };
    if (!storedRow) {
      if (!(await repository.insertExperiment(trx, row)))
        throw ConflictError.taken('id', `an experiment with id ${id} exists already in app ${app}`);
    } else await repository.updateExperiment(trx, row);
    const after = toStoredExperiment(row);
    const action = stored ? 'update' : 'create';
    await recordChange(trx, {
      actor,
      action,
      object: experimentObject(app, id),
      summary: `${action} experiment ${id} of app ${app}`,
      ...(stored ? { before: stored } : {}),
      after,
      at: now,
    });
    return { ...after, running: isRunning(after, now.getTime()) };
  });
}

/** Deletes an experiment no profile names; 409 while one does (it would run nothing). */
export async function deleteExperiment(
  db: Kysely<Database>,
  app: string,
  id: string,
  now: Date,
  actor: string = SYSTEM_ACTOR,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    const stored = await repository.selectExperiment(trx, app, id);
    if (!stored) throw notFound(app, id);
    const runners = (await listProfiles(trx, app)).filter((profile) => profile.experiment === id);
    if (runners.length > 0) {
      throw new ConflictError(
        `query profile ${runners[0]!.id} runs experiment ${id}: take the experiment off the profile first`,
        { profiles: runners.map((profile) => profile.id) },
      );
    }
    await repository.deleteExperiment(trx, app, id);
    await recordChange(trx, {
      actor,
      action: 'delete',
      object: experimentObject(app, id),
      summary: `delete experiment ${id} of app ${app}`,
      before: toStoredExperiment(stored),
      at: now,
    });
  });
}

/**
 * Makes a variant the profile's: its params the profile's defaults, its studio the profile's
 * studio; the experiment stops and leaves the profile. One transaction, two history events.
 */
export async function promote(
  db: Kysely<Database>,
  app: string,
  id: string,
  variantId: string,
  now: Date,
  actor: string = SYSTEM_ACTOR,
): Promise<{ experiment: Experiment; profile: string }> {
  return inTransaction(db, async (trx) => {
    const storedRow = await repository.selectExperiment(trx, app, id);
    if (!storedRow) throw notFound(app, id);
    const stored = toStoredExperiment(storedRow);
    const variant = stored.variants.find((one) => one.id === variantId);
    if (!variant) {
      throw new ValidationError([
        { field: 'variant', message: `experiment ${id} has no variant ${variantId}` },
      ]);
    }
    const runners = (await listProfiles(trx, app)).filter((profile) => profile.experiment === id);
    if (runners.length === 0)
      throw new ConflictError(`no query profile of app ${app} runs experiment ${id}: nothing to promote to`);
    const profile = runners[0]!;
    await promoteVariant(trx, app, profile.id, variant, now, actor, `experiment ${id}`);
    const at = now.toISOString();
    const { id: _id, createdAt: _c, updatedAt: _u, ...settings } = stored;
    const promoted: Settings = {
      ...settings,
      enabled: false,
      promoted: { variant: variantId, profile: profile.id, at },
    };
    const row: ExperimentTable = { ...storedRow, settings: JSON.stringify(promoted), updated_at: at };
    await repository.updateExperiment(trx, row);
    const after = toStoredExperiment(row);
    await recordChange(trx, {
      actor,
      action: 'promote',
      object: experimentObject(app, id),
      summary: `promote variant ${variantId} of experiment ${id} to query profile ${profile.id} of app ${app}`,
      before: stored,
      after,
      at: now,
    });
    return { experiment: { ...after, running: false }, profile: profile.id };
  });
}

/** The stored settings of a body: defaults filled in, times as ISO strings. */
function settingsOf(body: ExperimentBody, stored: StoredExperiment | undefined, at: string): Settings {
  const enabled = body.enabled ?? false;
  // Started when first enabled, as Fusion records it; a body without it keeps the stored one.
  const start =
    body.startTimestamp === undefined
      ? (stored?.startTimestamp ?? (enabled ? at : undefined))
      : new Date(body.startTimestamp).toISOString();
  return {
    ...(body.description === undefined ? {} : { description: body.description }),
    uniqueIdParameter: body.uniqueIdParameter ?? DEFAULT_UNIQUE_ID_PARAMETER,
    variants: body.variants.map((variant) => ({
      id: variant.id,
      ...(variant.name === undefined ? {} : { name: variant.name }),
      params: (variant.params ?? []).map(({ key, value, policy }) => ({ key, value, policy })),
      weight: variant.weight,
      ...(variant.studio === undefined ? {} : { studio: variant.studio }),
      rewrites: variant.rewrites ?? true,
    })),
    enabled,
    ...(start === undefined ? {} : { startTimestamp: start }),
    ...(body.endTimestamp === undefined ? {} : { endTimestamp: new Date(body.endTimestamp).toISOString() }),
    metrics: body.metrics ?? METRIC_TYPES.map((type) => ({ type })),
    ...(stored?.promoted === undefined ? {} : { promoted: stored.promoted }),
  };
}

function changedBesidesEnabled(stored: StoredExperiment, next: Settings): boolean {
  const { id: _id, createdAt: _c, updatedAt: _u, enabled: _e, ...before } = stored;
  const { enabled: _n, ...after } = next;
  return JSON.stringify(canonical(before)) !== JSON.stringify(canonical(after));
}

/** A value with its objects' keys in order, so two equal settings print the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

async function checkBody(db: Kysely<Database>, body: ExperimentBody): Promise<void> {
  const errors: FieldError[] = [];
  const total = body.variants.reduce((sum, variant) => sum + variant.weight, 0);
  if (!(total > 0)) {
    errors.push({ field: 'variants', message: 'the variants’ weights must sum to a positive number' });
  }
  const seen = new Set<string>();
  for (const [i, variant] of body.variants.entries()) {
    if (seen.has(variant.id))
      errors.push({ field: `variants[${i}].id`, message: `variant id ${variant.id} is given twice` });
    seen.add(variant.id);
    if (variant.studio !== undefined && !(await holdStudio(db, variant.studio)))
      errors.push({ field: `variants[${i}].studio`, message: `no studio ${variant.studio}` });
    for (const [j, param] of (variant.params ?? []).entries()) {
      const field = `variants[${i}].params[${j}]`;
      if (isForbiddenParam(param.key)) {
        errors.push({
          field: `${field}.key`,
          message: `${field}.key cannot be ${param.key}: no one may send it to Solr`,
        });
      }
      const construct = hiddenConstruct(param.value);
      if (construct !== undefined) {
        errors.push({
          field: `${field}.value`,
          message: `${field}.value holds ${construct}: local parameters, nested queries and other cores are not sent`,
        });
      }
    }
  }
  const unit = body.uniqueIdParameter ?? DEFAULT_UNIQUE_ID_PARAMETER;
  if (ENDPOINT_PARAMS.has(unit) || isForbiddenParam(unit)) {
    errors.push({
      field: 'uniqueIdParameter',
      message: `uniqueIdParameter cannot be ${unit}: the endpoint or Solr reads that parameter`,
    });
  }
  if (
    body.startTimestamp !== undefined &&
    body.endTimestamp !== undefined &&
    Date.parse(body.endTimestamp) <= Date.parse(body.startTimestamp)
  ) {
    errors.push({ field: 'endTimestamp', message: 'endTimestamp must be after startTimestamp' });
  }
  if (errors.length > 0) throw new ValidationError(errors);
}

function notFound(app: string, id: string): NotFoundError {
  return new NotFoundError(`no experiment ${id} in app ${app}`);
}
