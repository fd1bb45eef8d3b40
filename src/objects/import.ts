// An import: the whole document written in one transaction, all or nothing, as the policy says.
// A dry run does the same work and rolls it back, so what it answers is what the import would do.

import type { Kysely } from 'kysely';
import { SYSTEM_ACTOR } from '../history/actor.js';
import { ConflictError, ValidationError } from '../http/errors.js';
import type { TableGroup } from '../storage/planner-statistics.js';
import type { Database } from '../storage/schema.js';
import { inTransaction } from '../storage/transaction.js';
import type { ImportRun, ItemOf, KindKey, ObjectsDeps } from './kind.js';
import { KINDS } from './kinds/index.js';
import type { ImportReport, ObjectsDocument, Policy } from './schemas.js';

// A report names at most this many objects per list; its counts cover them all.
const NAMES_LISTED = 1000;
// How many conflicts a 409's message names; its details list every one.
const CONFLICTS_NAMED = 10;

/** Thrown at the end of a dry run to roll its transaction back, carrying what it did. */
class DryRunDone extends Error {
  constructor(readonly run: ImportRun) {
    super('dry run');
  }
}

export interface ImportOptions {
  policy: Policy;
  dryRun: boolean;
}

/** Imports a document; answers what was (or, in a dry run, would be) created, updated and left alone. */
export async function importObjects(
  db: Kysely<Database>,
  deps: ObjectsDeps,
  document: ObjectsDocument,
  options: ImportOptions,
  actor: string = SYSTEM_ACTOR,
): Promise<ImportReport> {
  const itemsOf = (key: KindKey) => document.objects[key] as ItemOf<KindKey>[];
  for (const kind of KINDS) kind.check?.(itemsOf(kind.key));
  assertNoDuplicates(document);
  let run: ImportRun;
  try {
    run = await inTransaction(db, async (trx) => {
      const existing = new Set<string>();
      for (const kind of KINDS)
        for (const name of await kind.existing(trx, itemsOf(kind.key))) existing.add(name);
      if (options.policy === 'abort' && existing.size > 0) throw conflicts([...existing]);
      const current = newRun(trx, deps, options.policy, existing, actor);
      for (const kind of KINDS) await kind.write(current, itemsOf(kind.key));
      if (options.dryRun) throw new DryRunDone(current);
      return current;
    });
  } catch (error) {
    if (error instanceof DryRunDone) return reportOf(error.run, options);
    throw error;
  }
  for (const after of run.afterCommit.values()) await after();
  tellWritten(run, itemsOf);
  return reportOf(run, options);
}

// The kinds whose tables grow large, and the group of tables each fills.
const GROUP_OF: Partial<Record<KindKey, TableGroup>> = {
  rules: 'rules',
  rewrites: 'rewrites',
  links: 'links',
};

/** Tells the planner's statistics how many objects of the large kinds were created or replaced. */
function tellWritten(run: ImportRun, itemsOf: (key: KindKey) => ItemOf<KindKey>[]): void {
  const written = new Set([...run.report.created, ...run.report.updated]);
  for (const kind of KINDS) {
    const group = GROUP_OF[kind.key];
    if (group === undefined) continue;
    const rows = itemsOf(kind.key).filter((item) => written.has(kind.nameOf(item))).length;
    run.deps.wrote?.(group, rows);
  }
}

function newRun(
  db: Kysely<Database>,
  deps: ObjectsDeps,
  policy: Policy,
  existing: Set<string>,
  actor: string,
): ImportRun {
  return {
    db,
    actor,
    deps,
    policy,
    now: deps.now(),
    existing,
    report: { created: [], updated: [], leftAlone: [], needsSecret: [], secretsIssued: [] },
    afterCommit: new Map(),
  };
}

/** Each object once per document: a second copy would be written over the first, unseen. */
function assertNoDuplicates(document: ObjectsDocument): void {
  const errors = [];
  for (const kind of KINDS) {
    const seen = new Set<string>();
    for (const [i, item] of (document.objects[kind.key] as ItemOf<KindKey>[]).entries()) {
      const name = kind.nameOf(item);
      if (seen.has(name)) {
        errors.push({ field: `objects.${kind.key}[${i}]`, message: `${name} is in the document twice` });
      }
      seen.add(name);
    }
  }
  if (errors.length > 0) throw new ValidationError(errors.slice(0, 20));
}

function conflicts(names: string[]): ConflictError {
  const named = names.slice(0, CONFLICTS_NAMED).join(', ');
  const more = names.length > CONFLICTS_NAMED ? ` and ${names.length - CONFLICTS_NAMED} more` : '';
  return new ConflictError(
    `${names.length} object(s) of the document exist already: ${named}${more}; nothing was imported (policy abort; use policy merge or overwrite)`,
    { conflicts: names },
  );
}

function reportOf(run: ImportRun, options: ImportOptions): ImportReport {
  const { created, updated, leftAlone } = run.report;
  return {
    dryRun: options.dryRun,
    policy: options.policy,
    counts: { created: created.length, updated: updated.length, leftAlone: leftAlone.length },
    created: created.slice(0, NAMES_LISTED),
    updated: updated.slice(0, NAMES_LISTED),
    leftAlone: leftAlone.slice(0, NAMES_LISTED),
    namesTruncated: [created, updated, leftAlone].some((list) => list.length > NAMES_LISTED),
    needsSecret: run.report.needsSecret,
    secretsIssued: options.dryRun ? [] : run.report.secretsIssued,
  };
}
