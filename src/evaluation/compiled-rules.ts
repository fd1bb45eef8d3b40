// A studio's live rules compiled for query matching: rules found by the query's key (`is`),
// by the keys of the query's first words (`startsWith`), by the query's words (`contains`, see
// contains-index.ts) or as the rules of the empty query (`empty`), instead of by a pass over
// every rule.
import type { RuleContent } from '../rules/rule.js';
import { termKey } from '../text/term-key.js';
import { ContainsIndex, wordsOf } from './contains-index.js';
import { inWindow, type Window, windowOf } from './effective.js';
import type { EvaluatedRule, EvaluationInput } from './evaluation.js';

export interface CompiledRule {
  id: string;
  creationDate: string;
  content: RuleContent;
  window: Window;
  segments: ReadonlySet<string> | null;
  queryProfiles: ReadonlySet<string> | null;
  /** The last evaluation that took this rule (a rule matched by two conditions is taken once). */
  seen: number;
}

/** Precedence order: higher precedence first, then the older rule, then the smaller id. */
export function precedenceOrder(a: EvaluatedRule, b: EvaluatedRule): number {
  return (
    b.content.precedence - a.content.precedence ||
    (a.creationDate < b.creationDate ? -1 : a.creationDate > b.creationDate ? 1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/**
 * The index. A rule can be put in or taken out on its own (`put`, `remove`), so a publish
 * changes only what it touched; the fired rules are put in precedence order per evaluation
 * (a handful), instead of by a rank over the whole studio that every change would shift.
 */
export class CompiledRules {
  readonly #byId = new Map<string, CompiledRule>();
  readonly #always: CompiledRule[] = [];
  readonly #byKey = new Map<string, CompiledRule[]>();
  readonly #byPrefix = new Map<string, CompiledRule[]>();
  /** The rules of the empty query (browse and category pages). */
  readonly #empty: CompiledRule[] = [];
  /** The most words of a `startsWith` condition, so a query looks up no longer prefix. */
  #longestPrefix = 0;
  readonly #contains = new ContainsIndex<CompiledRule>();
  #evaluation = 0;

  constructor(rules: readonly EvaluatedRule[]) {
    for (const rule of rules) this.put(rule);
  }

  /**
   * As the constructor, letting the event loop run (`pass`) every few hundred conditions:
   * counted by condition, as a rule may have a thousand.
   */
  static async sliced(rules: readonly EvaluatedRule[], pass: () => Promise<void>): Promise<CompiledRules> {
    const compiled = new CompiledRules([]);
    let placed = 0;
    for (const rule of rules) {
      compiled.put(rule);
      placed += 1 + rule.content.conditions.queries.length;
      if (placed >= 256) {
        placed = 0;
        await pass();
      }
    }
    return compiled;
  }

  get count(): number {
    return this.#byId.size;
  }

  /** The work of `contains` matching so far (see `ContainsIndex.examined`). */
  get examined(): number {
    return this.#contains.examined;
  }

  /** Adds a rule, or replaces the rule of its id. */
  put({ id, creationDate, content }: EvaluatedRule): void {
    if (this.#byId.has(id)) this.remove(id);
    const { conditions, segments } = content;
    const compiled: CompiledRule = {
      id,
      creationDate,
      content,
      window: windowOf(conditions.effectiveStart, conditions.effectiveEnd),
      segments: segments.length === 0 ? null : new Set(segments),
      queryProfiles: conditions.queryProfiles.length === 0 ? null : new Set(conditions.queryProfiles),
      seen: 0,
    };
    this.#byId.set(id, compiled);
    this.#place(compiled, {
      list: (list) => list.push(compiled),
      contains: (words) => this.#contains.add(words, compiled),
    });
  }

  /** Takes the rule of this id out, if it is in. */
  remove(id: string): void {
    const compiled = this.#byId.get(id);
    if (compiled === undefined) return;
    this.#byId.delete(id);
    this.#place(compiled, {
      list: (list) => {
        const at = list.indexOf(compiled);
        if (at >= 0) list.splice(at, 1);
      },
      contains: (words) => this.#contains.delete(words, compiled),
    });
  }

  /**
   * Walks the places a rule belongs in (one per query condition), for adding or taking it
   * out: a list, or the `contains` trie under the condition's words (none: every query
   * contains them).
   */
  #place(
    compiled: CompiledRule,
    visit: { list: (list: CompiledRule[]) => void; contains: (words: readonly string[]) => void },
  ): void {
    const { conditions } = compiled.content;
    if (conditions.queryMatch === 'empty') {
      visit.list(this.#empty);
      return;
    }
    if (conditions.queries.length === 0) {
      visit.list(this.#always);
      return;
    }
    if (conditions.queryMatch === 'startsWith') {
      for (const query of conditions.queries) {
        const key = termKey(query);
        // Never lowered on removal: a bound a little high costs a lookup or two, never a match.
        this.#longestPrefix = Math.max(this.#longestPrefix, key === '' ? 0 : key.split(' ').length);
        visit.list(listOf(this.#byPrefix, key));
      }
      return;
    }
    if (conditions.queryMatch !== 'contains') {
      for (const query of conditions.queries) visit.list(listOf(this.#byKey, termKey(query)));
      return;
    }
    // Conditions with the same words ("red bag", "bag red") are one place.
    const placed = new Set<string>();
    for (const query of conditions.queries) {
      const words = wordsOf(termKey(query));
      const key = words.join(' ');
      if (placed.has(key)) continue;
      placed.add(key);
      visit.contains(words);
    }
  }

  /** The rules that fire on the (rewritten) query's words in this context, in precedence order. */
  matching(words: readonly string[], input: EvaluationInput): CompiledRule[] {
    const stamp = ++this.#evaluation;
    const at = input.at.getTime();
    const fired: CompiledRule[] = [];
    const take = (rule: CompiledRule) => {
      if (rule.seen === stamp) return;
      rule.seen = stamp;
      if (fires(rule, at, input)) fired.push(rule);
    };
    for (const rule of this.#always) take(rule);
    if (words.length === 0) for (const rule of this.#empty) take(rule);
    for (const rule of this.#byKey.get(words.join(' ')) ?? []) take(rule);
    if (this.#byPrefix.size > 0) {
      // One lookup per prefix of the query, up to the longest condition: bounded by the query.
      let prefix = '';
      const longest = Math.min(words.length, this.#longestPrefix);
      for (let n = 0; n < longest; n++) {
        prefix = n === 0 ? words[0]! : `${prefix} ${words[n]}`;
        for (const rule of this.#byPrefix.get(prefix) ?? []) take(rule);
      }
    }
    this.#contains.match(words, take);
    return fired.sort(precedenceOrder);
  }
}

/** Whether a rule whose query conditions matched fires at `at` in the shopper's context. */
function fires(rule: CompiledRule, at: number, input: EvaluationInput): boolean {
  if (!inWindow(rule.window, at)) return false;
  if (rule.segments !== null && !input.segments.some((s) => rule.segments!.has(s))) return false;
  if (rule.queryProfiles !== null && !input.queryProfiles.some((p) => rule.queryProfiles!.has(p)))
    return false;
  // Every field condition must be met by one of the shopper's filters on that field.
  for (const { fieldName, values } of rule.content.conditions.fieldValues) {
    if (!input.filters.some((f) => f.fieldName === fieldName && values.includes(f.value))) return false;
  }
  return true;
}

function listOf<T>(map: Map<string, T[]>, key: string): T[] {
  let list = map.get(key);
  if (list === undefined) {
    list = [];
    map.set(key, list);
  }
  return list;
}
