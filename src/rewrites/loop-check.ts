// The loop check of publishes, kept from one publish to the next of a request. The graph and
// its follow relation are those of loops.ts (`findRewriteCycle` is the reference); here they
// are kept in indexes that a publish changes by its own edges only, and a publish searches
// for a loop only from the edges whose followers it may have added to: its own edges, those
// ending in a node a two-way set it brings joins, and those holding a word whose removal it
// starts or ends. Once a search from such edges finds nothing, the whole set is loop-free, so
// the next publish needs the same again and nothing more. Every step counts against a bound
// per request (`MAX_LOOP_CHECK_WORK`): a request whose check would pass it is refused whole.
import { LimitExceededError } from '../http/errors.js';
import { TimeSlice } from '../storage/time-slice.js';
import {
  describe,
  edgesOf,
  type IdentifiedRewrite,
  keyOf,
  OverlapIndex,
  type RewriteCycle,
  type RewriteEdge,
  wordsOf,
} from './loops.js';

/**
 * The work one request's publishes may make the loop check do, in steps (a stretch of words
 * indexed or looked up, a follower found), beyond reading the studio's live set in and
 * searching it once (a request may also spend that much again: a publish that changes many
 * edges' followers, a removed word most rewrites hold, searches about the whole set again).
 * A thousand three-word misspellings published into a studio of 20,000 take about 26,000
 * steps; a hundred misspellings of 60 one-letter words about 190,000; a step takes one to two
 * microseconds, so a request holds its transaction a fraction of a second at most for it.
 */
export const MAX_LOOP_CHECK_WORK = 250_000;

/** The check of a request passed its bound: the request is refused whole, nothing is written. */
export class LoopCheckLimitError extends LimitExceededError {
  constructor(limit: number) {
    super(
      `checking this request for rewrite loops would take over ${limit.toLocaleString('en')} steps; ` +
        'publish fewer rewrites per request, or shorter ones',
      { limit },
    );
  }
}

interface Edge extends RewriteEdge {
  number: number;
  fromKey: string;
  toKey: string;
  fromWords: string[];
  toWords: string[];
  /** A misspelling or head-tail: it replaces the words it matches. */
  replaces: boolean;
  /** A head-tail: its head is the whole query, so only what lies within it matches next. */
  whole: boolean;
  /** The words it matches without the removed words, when some of them are removed. */
  keptFrom?: string[];
}

/** A studio's live set, checked for loops publish by publish. */
export class LoopCheck {
  readonly #rewrites = new Map<string, IdentifiedRewrite>();
  readonly #edges = new Map<number, Edge>();
  readonly #edgesOf = new Map<string, number[]>();
  // By term key and by word, the edges that match or write them; appended to only: an edge
  // taken out stays listed, and readers skip the numbers no longer in `#edges`.
  readonly #fromKey = new Map<string, number[]>();
  readonly #toKey = new Map<string, number[]>();
  readonly #byWord = new Map<string, number[]>();
  readonly #matched = new OverlapIndex();
  /** The words matched, without removed ones, of the edges that match a removed word. */
  readonly #matchedKept = new OverlapIndex();
  readonly #removed = new Map<string, number>();
  /** Term key → the keys of its node (one array shared by a node's members). */
  #nodes = new Map<string, string[]>();
  /** Every loop of the set passes through one of these edges (all of them, at first). */
  readonly #unsure = new Set<number>();
  #next = 0;
  #work = 0;
  #revision = 0;
  readonly #slice = new TimeSlice();

  /** The work of reading the live set in, which the bound leaves out (a studio's size, not the request's). */
  #base = 0;
  /** What the publishes may spend: the bound, and as much again as reading the set took. */
  #allowance = Number.POSITIVE_INFINITY;

  private constructor(private readonly limit: number) {}

  /**
   * The check of a live set, read in and searched once whole (yielding to the event loop as
   * it goes): what a publish then costs is counted against `limit`.
   */
  static async of(live: readonly IdentifiedRewrite[], limit = MAX_LOOP_CHECK_WORK): Promise<LoopCheck> {
    const check = new LoopCheck(limit);
    for (const rewrite of live) {
      for (const edge of check.#put(rewrite.id, rewrite)) check.#unsure.add(edge);
      if (check.#slice.due()) await check.#slice.pass();
    }
    // A set stored loop-free needs no more search; one that loops (stored before a rule of
    // the check was added) keeps every edge to search until a publish breaks the loop.
    if ((await check.#search([...check.#unsure])) === undefined) check.#unsure.clear();
    check.#base = check.#work;
    check.#allowance = check.limit + check.#base;
    return check;
  }

  /** Counts the changes to the set: a caller whose write failed after one knows the check is ahead of it. */
  get revision(): number {
    return this.#revision;
  }

  /** The steps counted against the bound so far (those of the publishes). */
  get work(): number {
    return Math.max(0, this.#work - this.#base);
  }

  /**
   * The loop the set would have with `content` as the live content of rewrite `id`, or
   * undefined; without a loop the content stays in the set, with one the set is as before.
   */
  async loopWith(id: string, content: IdentifiedRewrite): Promise<RewriteCycle | undefined> {
    const before = this.#rewrites.get(id);
    const changed = this.#put(id, content);
    const cycle = await this.#search([...this.#unsure, ...changed].sort((a, b) => a - b));
    if (cycle === undefined) {
      this.#unsure.clear();
      return undefined;
    }
    for (const edge of this.#put(id, before)) this.#unsure.add(edge);
    return cycle;
  }

  /** Takes rewrite `id` out of the set (a publish that deletes it), without a search. */
  remove(id: string): void {
    for (const edge of this.#put(id, undefined)) this.#unsure.add(edge);
  }

  #spend(steps: number): void {
    this.#work += steps;
    if (this.#work - this.#base > this.#allowance) throw new LoopCheckLimitError(this.#allowance);
  }

  /** Replaces rewrite `id`'s content; answers the edges whose followers may have grown. */
  #put(id: string, content: IdentifiedRewrite | undefined): Set<number> {
    this.#revision += 1;
    const changed = new Set<number>();
    const before = this.#rewrites.get(id);
    for (const number of this.#edgesOf.get(id) ?? []) this.#drop(this.#edges.get(number)!);
    this.#edgesOf.delete(id);
    if (content) this.#rewrites.set(id, content);
    else this.#rewrites.delete(id);
    this.#changeRemoved(before, content, changed);
    this.#changeNodes(before, content, changed);
    const numbers: number[] = [];
    for (const edge of content ? edgesOf(content) : []) {
      const number = this.#add(edge, content!.type);
      numbers.push(number);
      changed.add(number);
    }
    if (numbers.length > 0) this.#edgesOf.set(id, numbers);
    return changed;
  }

  #add(plain: RewriteEdge, type: IdentifiedRewrite['type']): number {
    const fromWords = wordsOf(plain.from);
    const toWords = wordsOf(plain.to);
    const edge: Edge = {
      from: plain.from,
      to: plain.to,
      id: plain.id,
      number: this.#next++,
      fromKey: keyOf(plain.from),
      toKey: keyOf(plain.to),
      fromWords,
      toWords,
      replaces: type === 'misspelling' || type === 'headTail',
      whole: type === 'headTail',
    };
    this.#spend(1 + fromWords.length + toWords.length);
    this.#edges.set(edge.number, edge);
    append(this.#fromKey, edge.fromKey, edge.number);
    append(this.#toKey, edge.toKey, edge.number);
    for (const word of fromWords) append(this.#byWord, word, edge.number);
    for (const word of toWords) append(this.#byWord, word, edge.number);
    if (edge.replaces) {
      this.#spend(this.#matched.add(fromWords, edge.number));
      this.#indexKept(edge);
    }
    return edge.number;
  }

  #drop(edge: Edge): void {
    this.#spend(1);
    this.#edges.delete(edge.number);
    this.#unsure.delete(edge.number);
    if (edge.replaces) {
      this.#spend(this.#matched.remove(edge.fromWords, edge.number));
      this.#unindexKept(edge);
    }
  }

  #indexKept(edge: Edge): void {
    const kept = this.#kept(edge.fromWords);
    if (kept.length === edge.fromWords.length) return;
    edge.keptFrom = kept;
    this.#spend(this.#matchedKept.add(kept, edge.number));
  }

  #unindexKept(edge: Edge): void {
    if (edge.keptFrom === undefined) return;
    this.#spend(this.#matchedKept.remove(edge.keptFrom, edge.number));
    delete edge.keptFrom;
  }

  #kept(words: string[]): string[] {
    return this.#removed.size === 0 ? words : words.filter((word) => !this.#removed.has(word));
  }

  /** Counts the removed words; a word that starts or stops being removed changes the edges holding it. */
  #changeRemoved(
    before: IdentifiedRewrite | undefined,
    after: IdentifiedRewrite | undefined,
    changed: Set<number>,
  ): void {
    const words = (rewrite: IdentifiedRewrite | undefined) =>
      rewrite?.type === 'removeWords' ? [...new Set(rewrite.words.flatMap(wordsOf))] : [];
    const flipped: string[] = [];
    for (const word of words(before)) {
      const count = this.#removed.get(word)! - 1;
      if (count === 0) {
        this.#removed.delete(word);
        flipped.push(word);
      } else this.#removed.set(word, count);
    }
    for (const word of words(after)) {
      const count = (this.#removed.get(word) ?? 0) + 1;
      this.#removed.set(word, count);
      if (count === 1) flipped.push(word);
    }
    for (const word of new Set(flipped)) {
      for (const number of new Set(this.#byWord.get(word))) {
        this.#spend(1);
        const edge = this.#edges.get(number);
        if (!edge) continue;
        changed.add(number);
        if (!edge.replaces) continue;
        this.#unindexKept(edge);
        this.#indexKept(edge);
      }
    }
  }

  /** Joins the terms of a two-way set into one node; the edges ending in a node it joins change. */
  #changeNodes(
    before: IdentifiedRewrite | undefined,
    after: IdentifiedRewrite | undefined,
    changed: Set<number>,
  ): void {
    const twoWay = (rewrite: IdentifiedRewrite | undefined) =>
      rewrite?.type === 'synonym' && rewrite.input == null ? rewrite.synonyms.map(keyOf) : [];
    const joined = twoWay(after);
    if (twoWay(before).length > 0) {
      // Nodes only split when a set goes: join the remaining sets again.
      this.#nodes = new Map();
      for (const rewrite of this.#rewrites.values()) this.#join(twoWay(rewrite));
    } else this.#join(joined);
    for (const member of new Set(joined.flatMap((key) => this.#node(key)))) {
      for (const number of this.#toKey.get(member) ?? []) {
        this.#spend(1);
        if (this.#edges.has(number)) changed.add(number);
      }
    }
  }

  #join(keys: string[]): void {
    this.#spend(keys.length);
    for (const key of keys.slice(1)) {
      let a = this.#node(keys[0]!);
      let b = this.#node(key);
      if (a === b) continue;
      if (a.length < b.length) [a, b] = [b, a];
      this.#spend(b.length);
      for (const member of b) {
        a.push(member);
        this.#nodes.set(member, a);
      }
    }
  }

  #node(key: string): string[] {
    let node = this.#nodes.get(key);
    if (!node) {
      node = [key];
      this.#nodes.set(key, node);
    }
    return node;
  }

  /** The edges that follow an edge, in edge order: by node, and by overlapping words between replacing rewrites. */
  #followers(edge: Edge): number[] {
    const found = new Set<number>();
    let work = 1;
    for (const member of this.#nodes.get(edge.toKey) ?? [edge.toKey]) {
      const numbers = this.#fromKey.get(member) ?? [];
      for (const number of numbers) if (this.#edges.has(number)) found.add(number);
      work += 1 + numbers.length;
    }
    if (edge.replaces) {
      work += this.#matched.find(edge.toWords, edge.whole, found);
      if (this.#removed.size > 0) {
        // As the reference's index of every replacing edge's kept words: the edges whose
        // words hold no removed word are in `#matched` as they are, the others in `#matchedKept`.
        const kept = this.#kept(edge.toWords);
        work += this.#matchedKept.find(kept, edge.whole, found);
        if (kept.length !== edge.toWords.length) {
          const plain = new Set<number>();
          work += this.#matched.find(kept, edge.whole, plain);
          for (const number of plain) if (this.#edges.get(number)!.keptFrom === undefined) found.add(number);
        }
      }
    }
    this.#spend(work);
    return [...found].sort((a, b) => a - b);
  }

  /** A depth-first search from `starts` (iterative: a chain of thousands cannot overflow the stack). */
  async #search(starts: number[]): Promise<RewriteCycle | undefined> {
    const state = new Map<number, 'open' | 'done'>();
    for (const start of starts) {
      if (state.has(start) || !this.#edges.has(start)) continue;
      const stack: Array<{ edge: Edge; followers: number[]; next: number }> = [];
      const enter = (number: number) => {
        state.set(number, 'open');
        const edge = this.#edges.get(number)!;
        stack.push({ edge, followers: this.#followers(edge), next: 0 });
      };
      enter(start);
      while (stack.length > 0) {
        if (this.#slice.due()) await this.#slice.pass();
        const top = stack.at(-1)!;
        const follower = top.followers[top.next++];
        if (follower === undefined) {
          state.set(top.edge.number, 'done');
          stack.pop();
        } else if (state.get(follower) === 'open') {
          const from = stack.findIndex((step) => step.edge.number === follower);
          const loop = stack.slice(from).map((step) => step.edge);
          // Named from its earliest rewrite, as a search of the whole set in its order would.
          const first = loop.indexOf(loop.reduce((a, b) => (b.number < a.number ? b : a)));
          return describe([...loop.slice(first), ...loop.slice(0, first)]);
        } else if (state.get(follower) === undefined) {
          enter(follower);
        }
      }
    }
    return undefined;
  }
}

function append(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
