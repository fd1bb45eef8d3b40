// `contains` conditions as a trie of their distinct words in code-unit order: a condition
// matches when each of its words is a word of the query, so an evaluation walks only the
// paths made of the query's own words. Its work is bounded by the query (at most one node
// per ordered subset of its words that some condition starts with, a lookup per remaining
// query word or child, whichever are fewer), not by how many conditions a studio holds.

interface Node<T> {
  /** The conditions that go on, by their next word (each after this node's word). */
  children: Map<string, Node<T>> | null;
  /** What has a condition of exactly the words on the path to this node (an array: most hold one). */
  holders: T[] | null;
}

/** The distinct words of a term key (`''` has none), in the order the trie keeps them. */
export function wordsOf(key: string): string[] {
  if (key === '') return [];
  const words = key.split(' ');
  // Most conditions have one or two words; a full sort of those costs more than the compile's rest.
  if (words.length === 1) return words;
  if (words.length === 2) {
    const [first, second] = words as [string, string];
    return first === second ? [first] : first < second ? words : [second, first];
  }
  words.sort();
  let distinct = 0;
  for (const word of words) if (distinct === 0 || words[distinct - 1] !== word) words[distinct++] = word;
  words.length = distinct;
  return words;
}

export class ContainsIndex<T> {
  readonly #root: Node<T> = { children: null, holders: null };
  #examined = 0;

  /** Nodes visited and lookups made by every `match` so far: the work, counted, for tests. */
  get examined(): number {
    return this.#examined;
  }

  /**
   * Files a holder under a condition's distinct words, sorted (see `wordsOf`). A holder's
   * conditions are added together, with none of another's between (`CompiledRules.put`), so
   * a condition it holds already is the last one of its node.
   */
  add(words: readonly string[], holder: T): void {
    let node = this.#root;
    for (const word of words) {
      node.children ??= new Map();
      let child = node.children.get(word);
      if (child === undefined) {
        child = { children: null, holders: null };
        node.children.set(word, child);
      }
      node = child;
    }
    node.holders ??= [];
    if (node.holders[node.holders.length - 1] !== holder) node.holders.push(holder);
  }

  /** Takes a holder out of a condition's node (if there), and the nodes nothing needs any more. */
  delete(words: readonly string[], holder: T): void {
    const path: Node<T>[] = [this.#root];
    for (const word of words) {
      const child = path[path.length - 1]!.children?.get(word);
      if (child === undefined) return;
      path.push(child);
    }
    const last = path[path.length - 1]!;
    const at = last.holders?.indexOf(holder) ?? -1;
    if (at < 0) return;
    const holders = last.holders!;
    // The order of holders does not matter (the fired rules are sorted afterwards).
    holders[at] = holders[holders.length - 1]!;
    holders.pop();
    if (holders.length === 0) last.holders = null;
    for (let depth = words.length; depth > 0; depth--) {
      const node = path[depth]!;
      if (node.holders !== null || node.children !== null) break;
      const parent = path[depth - 1]!;
      parent.children!.delete(words[depth - 1]!);
      if (parent.children!.size === 0) parent.children = null;
    }
  }

  /** Calls `visit` for each holder of a condition all of whose words are among `words`. */
  match(words: readonly string[], visit: (holder: T) => void): void {
    const root = this.#root;
    if (root.children === null && root.holders === null) return;
    const query = [...new Set(words)].sort();
    let position: Map<string, number> | undefined;
    const walk = (node: Node<T>, from: number): void => {
      this.#examined++;
      if (node.holders !== null) for (const holder of node.holders) visit(holder);
      const children = node.children;
      if (children === null) return;
      if (children.size < query.length - from) {
        // A child's word sorts after the path's, so one of the query's is at `from` or later.
        position ??= new Map(query.map((word, i) => [word, i]));
        for (const [word, child] of children) {
          this.#examined++;
          const at = position.get(word);
          if (at !== undefined) walk(child, at + 1);
        }
      } else {
        for (let at = from; at < query.length; at++) {
          this.#examined++;
          const child = children.get(query[at]!);
          if (child !== undefined) walk(child, at + 1);
        }
      }
    };
    walk(root, 0);
  }
}
