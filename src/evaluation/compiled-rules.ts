// A studio's live rules compiled for query matching: rules found by the query's key (`is`)
// or by one of its words (`contains`) instead of by a pass over every rule.
import type { RuleContent } from '../rules/rule.js';
import { termKey } from '../text/term-key.js';
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

interface ContainsCondition {
  rule: CompiledRule;
  words: string[];
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
  readonly #containsByWord = new Map<string, ContainsCondition[]>();
  #evaluation = 0;

  constructor(rules: readonly EvaluatedRule[]) {
    for (const rule of rules) this.put(rule);
  }

  /** As the constructor, letting the event loop run (`pass`) every few hundred rules. */
  static async sliced(rules: readonly EvaluatedRule[], pass: () => Promise<void>): Promise<CompiledRules> {
    const compiled = new CompiledRules([]);
    for (let i = 0; i < rules.length; i++) {
      compiled.put(rules[i]!);
      if (i % 256 === 255) await pass();
    }
    return compiled;
  }

  get count(): number {
    return this.#byId.size;
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
    this.#place(compiled, (list, entry) => list.push(entry));
  }

  /** Takes the rule of this id out, if it is in. */
  remove(id: string): void {
    const compiled = this.#byId.get(id);
    if (compiled === undefined) return;
    this.#byId.delete(id);
    this.#place(compiled, (list) => {
      const at = list.findIndex(
        (entry) => entry === compiled || (entry as ContainsCondition).rule === compiled,
      );
      if (at >= 0) list.splice(at, 1);
    });
  }

  /** Walks the lists a rule belongs in (one per query condition), for adding or taking it out. */
  #place(
    compiled: CompiledRule,
    visit: <T extends CompiledRule | ContainsCondition>(list: T[], entry: T) => void,
  ): void {
    const { conditions } = compiled.content;
    if (conditions.queries.length === 0) {
      visit(this.#always, compiled);
      return;
    }
    const contains = conditions.queryMatch === 'contains';
    for (const query of conditions.queries) {
      const key = termKey(query);
      if (!contains) {
        visit(listOf(this.#byKey, key), compiled);
      } else if (key === '') {
        // No words to look for: every query contains them.
        visit(this.#always, compiled);
      } else {
        const words = key.split(' ');
        visit(listOf(this.#containsByWord, words[0]!), { rule: compiled, words });
      }
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
    for (const rule of this.#byKey.get(words.join(' ')) ?? []) take(rule);
    if (this.#containsByWord.size > 0 && words.length > 0) {
      const present = new Set(words);
      for (const word of present) {
        for (const condition of this.#containsByWord.get(word) ?? []) {
          if (condition.rule.seen !== stamp && condition.words.every((w) => present.has(w)))
            take(condition.rule);
        }
      }
    }
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
