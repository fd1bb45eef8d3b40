// What the Objects area knows of one kind of object: how to read it out for an export and how
// to write it back on import, each through the owning area's service. The table of kinds is in
// kinds/index.ts; a new kind is one more entry there.
import type { Kysely } from 'kysely';
import type { SecretBox } from '../security/secret-box.js';
import type { TableGroup } from '../storage/planner-statistics.js';
import type { Database } from '../storage/schema.js';
import type { ClientsChange } from '../studios/service.js';
import type { TypeaheadParts } from '../typeahead/typeahead-parts.js';
import type { ImportReport, Objects, ObjectType, Policy } from './schemas.js';

export type KindKey = keyof Objects;
export type ItemOf<K extends KindKey> = Objects[K][number];

/** The stateful parts an import or export needs, from buildApp. */
export interface ObjectsDeps {
  box: SecretBox;
  typeahead: TypeaheadParts;
  /** Wakes the sender of rule deliveries (after the import's commit). */
  wakeDeliveries(): void;
  /** Tells rule evaluation that a studio's live rules changed (after the import's commit). */
  liveRulesChanged?(studioId: string): Promise<void>;
  /** Rule evaluation's part in a change of a studio's API clients (in the import's transaction, then after its commit). */
  clientsChange?(studioId: string): ClientsChange;
  /** The rewrites' own notice that a studio's live rewrites changed (after the import's commit). */
  liveRewritesChanged?(studioId: string): void;
  /** Told how many rows of a group of large tables the import wrote (after its commit). */
  wrote?(group: TableGroup, rows: number): void;
  now(): Date;
}

/** What an export covers: the ids of each managed type, and the app it was asked for, if any. */
export interface Selection {
  app?: string | undefined;
  ids: Record<ObjectType, string[]>;
}

/** An import under way: its transaction, its policy, and what it did so far. */
export interface ImportRun {
  readonly db: Kysely<Database>;
  readonly deps: ObjectsDeps;
  readonly policy: Policy;
  readonly now: Date;
  /** Who imports, as the history records it. */
  readonly actor: string;
  /** Names of the objects of the document that exist already (read before anything is written). */
  readonly existing: ReadonlySet<string>;
  readonly report: Omit<ImportReport, 'dryRun' | 'policy' | 'counts' | 'namesTruncated'>;
  /** Work that must wait until the transaction has committed (serving a change, waking a sender). */
  readonly afterCommit: Map<string, () => void | Promise<void>>;
}

export interface ObjectKind<K extends KindKey> {
  readonly key: K;
  /** Its name prefix as a link end (`search-cluster`), when objects of the kind take part in links. */
  readonly prefix?: string;
  /** Read into memory for an export (small kinds) or streamed a page at a time (large ones). */
  readonly streamed?: boolean;
  nameOf(item: ItemOf<K>): string;
  /** The names of the secrets an exported item goes without. */
  secretsOf?(item: ItemOf<K>): string[];
  exported(db: Kysely<Database>, selection: Selection, deps: ObjectsDeps): AsyncIterable<ItemOf<K>>;
  /** The names of those items that exist already (their conflicts, under the abort policy). */
  existing(db: Kysely<Database>, items: ItemOf<K>[]): Promise<string[]>;
  /** Refuses what no policy can import, before anything is read or written. */
  check?(items: ItemOf<K>[]): void;
  /** Writes the items as the run's policy says, in the run's transaction. */
  write(run: ImportRun, items: ItemOf<K>[]): Promise<void>;
  /** Whether an object of the kind with this id exists (a link's end). */
  exists?(db: Kysely<Database>, id: string): Promise<boolean>;
  /** Which of these ids exist, read a batch at a time: for a kind whose objects links name by the thousand. */
  present?(db: Kysely<Database>, ids: string[]): Promise<Set<string>>;
}

/** What the policy makes of one object: create it, replace it, or leave the existing one alone. */
export function decide(run: ImportRun, name: string): 'create' | 'replace' | 'skip' {
  if (!run.existing.has(name)) return 'create';
  return run.policy === 'overwrite' ? 'replace' : 'skip';
}

/** Records what was done with an object. */
export function record(run: ImportRun, name: string, done: 'create' | 'replace' | 'skip'): void {
  const list =
    done === 'create' ? run.report.created : done === 'replace' ? run.report.updated : run.report.leftAlone;
  list.push(name);
}

/** Yields each of a list's items, as a kind read into memory answers its export. */
export async function* each<T>(items: Promise<T[]>): AsyncGenerator<T> {
  yield* await items;
}
