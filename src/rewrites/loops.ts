// The loop check of a rewrite set: no query may be rewritten back into itself, in whole or in part.
//
// The rewrite graph: its nodes are terms compared by term key, the members of one two-way
// synonym set being one node (they are one meaning, expanded in one step). Its edges go from
// what a rewrite matches to what it writes: misspelling → correction, headTail query → head,
// one-way synonym input → each synonym. Phrases and removed words write no new term and add
// no edge. One edge follows another when the second matches what the first wrote: the same
// node; or, between misspellings and head-tails, which replace the query's words, words the
// first wrote as part of a longer query (see `overlaps`). A set is accepted when no edge
// follows itself through others; a chain (a → b → c) is fine.
import { TimeSlice } from '../storage/time-slice.js';
import { termKey } from '../text/term-key.js';
import type { RewriteContent } from './rewrite.js';

export type IdentifiedRewrite = RewriteContent & { id: string };

/** One edge of the rewrite graph, with the texts as the rewrite spells them. */
export interface RewriteEdge {
  from: string;
  to: string;
  id: string;
}

/** A loop found: the terms around it (first and last the same) and the rewrites on it. */
export interface RewriteCycle {
  terms: string[];
  ids: string[];
}

// Every term is keyed several times in one check (its node, its words, the loop's name); the
// keys of recent terms are kept, as keying dominated the check's time.
const KEPT_KEYS = 50_000;
const recentKeys = new Map<string, string>();
export function keyOf(term: string): string {
  let key = recentKeys.get(term);
  if (key === undefined) {
    if (recentKeys.size >= KEPT_KEYS) recentKeys.clear();
    key = termKey(term);
    recentKeys.set(term, key);
  }
  return key;
}

/** The edges of a set's rewrite graph, in the set's order. */
export function rewriteEdges(rewrites: readonly IdentifiedRewrite[]): RewriteEdge[] {
  return rewrites.flatMap(edgesOf);
}

/** The edges one rewrite adds to the graph. */
export function edgesOf(rewrite: IdentifiedRewrite): RewriteEdge[] {
  switch (rewrite.type) {
    case 'misspelling':
      return [{ from: rewrite.misspelling, to: rewrite.correction, id: rewrite.id }];
    case 'headTail':
      return [{ from: rewrite.query, to: rewrite.head, id: rewrite.id }];
    case 'synonym': {
      const input = rewrite.input;
      return input == null ? [] : rewrite.synonyms.map((to) => ({ from: input, to, id: rewrite.id }));
    }
    case 'phrase':
    case 'removeWords':
      return [];
  }
}

/** The terms that are one node: the members of two-way synonym sets, joined transitively. */
export function equivalentTerms(rewrites: readonly IdentifiedRewrite[]): (term: string) => string {
  return finish(equivalentTermsSteps(rewrites));
}

function* equivalentTermsSteps(
  rewrites: readonly IdentifiedRewrite[],
): Generator<void, (term: string) => string> {
  const parent = new Map<string, string>();
  const find = (key: string): string => {
    let root = key;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    parent.set(key, root);
    return root;
  };
  for (const rewrite of rewrites) {
    yield;
    if (rewrite.type !== 'synonym' || rewrite.input != null) continue;
    const [first, ...others] = rewrite.synonyms.map(keyOf);
    if (first === undefined) continue;
    for (const other of others) {
      const a = find(first);
      const b = find(other);
      // The smaller key is the root, so the node's name does not depend on the set's order.
      const [root, child] = [a, b].sort();
      if (root !== child) parent.set(child!, root!);
    }
  }
  return (term) => find(keyOf(term));
}

/** The first loop of the set's rewrite graph (a depth-first search in the set's order), or undefined. */
export function findRewriteCycle(rewrites: readonly IdentifiedRewrite[]): RewriteCycle | undefined {
  return finish(cycleSearch(rewrites));
}

/**
 * As `findRewriteCycle`, letting the event loop run whenever the search has held it for a
 * slice: the check of a studio of tens of thousands of rewrites takes up to a second, which
 * the publish or import that asks for it must not take from every other request.
 */
export async function findRewriteCycleSliced(
  rewrites: readonly IdentifiedRewrite[],
  slice: TimeSlice = new TimeSlice(),
): Promise<RewriteCycle | undefined> {
  const search = cycleSearch(rewrites);
  for (;;) {
    const step = search.next();
    if (step.done) return step.value;
    if (slice.due()) await slice.pass();
  }
}

/** Runs a search of small steps to its end at once. */
function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The search in small steps: it yields between them (a rewrite, an edge, a move of the walk). */
function* cycleSearch(rewrites: readonly IdentifiedRewrite[]): Generator<void, RewriteCycle | undefined> {
  const edges = rewriteEdges(rewrites);
  yield;
  const next = yield* followers(rewrites, edges);
  const state = new Map<number, 'open' | 'done'>();
  // Iterative, so a chain of thousands of rewrites cannot overflow the stack.
  for (let start = 0; start < edges.length; start++) {
    if (state.has(start)) continue;
    const stack: Array<{ edge: number; followers: number[]; next: number }> = [];
    const enter = (edge: number) => {
      state.set(edge, 'open');
      stack.push({ edge, followers: next(edge), next: 0 });
    };
    enter(start);
    while (stack.length > 0) {
      yield;
      const top = stack.at(-1)!;
      const follower = top.followers[top.next++];
      if (follower === undefined) {
        state.set(top.edge, 'done');
        stack.pop();
      } else if (state.get(follower) === 'open') {
        const from = stack.findIndex((step) => step.edge === follower);
        return describe(stack.slice(from).map((step) => edges[step.edge]!));
      } else if (state.get(follower) === undefined) {
        enter(follower);
      }
    }
  }
  return undefined;
}

/** The edges that follow each edge: by node, and by overlapping words between replacing rewrites. */
function* followers(
  rewrites: readonly IdentifiedRewrite[],
  edges: RewriteEdge[],
): Generator<void, (edge: number) => number[]> {
  const node = yield* equivalentTermsSteps(rewrites);
  const fromNode = new Map<string, number[]>();
  for (const [index, edge] of edges.entries()) {
    yield;
    push(fromNode, node(edge.from), index);
  }
  const kindOf = new Map(rewrites.map((rewrite) => [rewrite.id, rewrite.type]));
  const replaces = (edge: RewriteEdge) => {
    const kind = kindOf.get(edge.id);
    return kind === 'misspelling' || kind === 'headTail';
  };
  const removed = new Set(
    rewrites.flatMap((rewrite) => (rewrite.type === 'removeWords' ? rewrite.words.flatMap(wordsOf) : [])),
  );
  const kept = (words: string[]) => words.filter((word) => !removed.has(word));
  const matched = new OverlapIndex();
  const matchedKept = new OverlapIndex();
  for (const [index, edge] of edges.entries()) {
    yield;
    if (!replaces(edge)) continue;
    matched.add(wordsOf(edge.from), index);
    if (removed.size > 0) matchedKept.add(kept(wordsOf(edge.from)), index);
  }
  return (index) => {
    const edge = edges[index]!;
    const found = new Set(fromNode.get(node(edge.to)) ?? []);
    if (replaces(edge)) {
      const written = wordsOf(edge.to);
      // A head is the whole query: what matches its words lies within it.
      const wholeQuery = kindOf.get(edge.id) === 'headTail';
      // Removed words may join what was around them only while in effect: both ways count.
      matched.find(written, wholeQuery, found);
      if (removed.size > 0) matchedKept.find(kept(written), wholeQuery, found);
    }
    return [...found];
  };
}

/**
 * Word sequences (what rewrites match) indexed by their stretches of words, so that finding
 * those that overlap some written words costs lookups in the written words' length, not a
 * comparison with every rewrite sharing a word (a common word would make that quadratic).
 */
export class OverlapIndex {
  readonly #whole = new Map<string, number[]>();
  readonly #inner = new Map<string, number[]>();
  readonly #prefix = new Map<string, number[]>();
  readonly #suffix = new Map<string, number[]>();

  /** Indexes `words` under `id`; answers the work done (the stretches keyed), for a caller's bound. */
  add(words: readonly string[], id: number): number {
    return this.#stretches(words, (map, stretch) => {
      const ids = map.get(stretch);
      if (!ids) map.set(stretch, [id]);
      else if (ids.at(-1) !== id) ids.push(id);
    });
  }

  /** Takes `id` out again, given the words it was added with; answers the work done. */
  remove(words: readonly string[], id: number): number {
    return this.#stretches(words, (map, stretch) => {
      const ids = map.get(stretch);
      const at = ids?.indexOf(id) ?? -1;
      if (at < 0) return;
      ids!.splice(at, 1);
      if (ids!.length === 0) map.delete(stretch);
    });
  }

  #stretches(words: readonly string[], visit: (map: Map<string, number[]>, stretch: string) => void): number {
    const length = words.length;
    if (length === 0) return 0;
    let work = 0;
    for (let from = 0; from < length; from++) {
      // Each stretch from `from` is the one before it and a word more (no array to join).
      let stretch = words[from]!;
      for (let to = from + 1; to <= length; to++) {
        if (to > from + 1) stretch += ` ${words[to - 1]}`;
        const map = to - from === length ? this.#whole : this.#inner;
        visit(map, stretch);
        if (from === 0 && to < length) visit(this.#prefix, stretch);
        if (to === length && from > 0) visit(this.#suffix, stretch);
        work += 1;
      }
    }
    return work;
  }

  /**
   * Adds to `found` the ids whose words overlap `written` (one holds the other, or an end of
   * one is the other's beginning: `laptop bag` and `bag case`), or, when `within`, only those
   * whose words lie within `written`. Answers the work done: the lookups and the ids found.
   */
  find(written: readonly string[], within: boolean, found: Set<number>): number {
    const length = written.length;
    if (length === 0) return 0;
    let work = 0;
    const add = (ids: number[] | undefined) => {
      work += 1;
      if (!ids) return;
      work += ids.length;
      for (const id of ids) found.add(id);
    };
    for (let from = 0; from < length; from++) {
      let stretch = written[from]!;
      for (let to = from + 1; to <= length; to++) {
        if (to > from + 1) stretch += ` ${written[to - 1]}`;
        add(this.#whole.get(stretch));
        if (within) continue;
        if (to - from === length) add(this.#inner.get(stretch));
        // An end of the written words that begins what is matched, and the other way round.
        if (to === length && from > 0) add(this.#prefix.get(stretch));
        if (from === 0 && to < length) add(this.#suffix.get(stretch));
      }
    }
    return work;
  }
}

/** A term's words by term key, as evaluation splits queries. */
export function wordsOf(term: string): string[] {
  const key = keyOf(term);
  return key === '' ? [] : key.split(' ');
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The loop's terms as a reader follows it: `a → b → a`, an equivalent term shown where the path changes member. */
export function describe(edges: RewriteEdge[]): RewriteCycle {
  const terms: string[] = [];
  for (const edge of edges) {
    if (terms.length === 0 || keyOf(terms.at(-1)!) !== keyOf(edge.from)) terms.push(edge.from);
    terms.push(edge.to);
  }
  if (keyOf(terms.at(-1)!) !== keyOf(terms[0]!)) terms.push(terms[0]!);
  return { terms, ids: [...new Set(edges.map((edge) => edge.id))] };
}
