// The combined effect of the rules that fire, taken in precedence order: where two rules
// act against each other, the one earlier in that order wins, and a block beats a pin.
import type { RuleContent } from '../rules/rule.js';
import type { Effect, EffectSources, LostEffect } from './evaluation.js';

interface Ranked {
  id: string;
  content: RuleContent;
}

/** The effect of no rule. */
export function emptyEffect(): Effect {
  return {
    blocked: [],
    boosts: [],
    buries: [],
    pins: [],
    redirect: null,
    banners: [],
    filters: [],
    queryBoosts: [],
    params: [],
    responseValues: {},
    facets: null,
  };
}

/** The sources of no rule's effect. */
export function emptySources(): EffectSources {
  return {
    blocked: [],
    boosts: [],
    buries: [],
    pins: [],
    filters: [],
    queryBoosts: [],
    params: [],
    responseValues: {},
    facets: null,
  };
}

/**
 * Merges the fired rules' effects (already in precedence order), says what lost, and which rule
 * each part of the effect comes from.
 */
export function mergeEffects(fired: readonly Ranked[]): {
  effect: Effect;
  lost: LostEffect[];
  sources: EffectSources;
} {
  const effect = emptyEffect();
  const sources = emptySources();
  const lost: LostEffect[] = [];
  const blockedBy = new Map<string, Ranked>();
  const blockedValues = new Map<string, Set<string>>();
  // Blocks first: a blocked document is gone whatever pins it, so every block applies.
  for (const rule of fired) {
    const { content } = rule;
    if (content.type !== 'blockList') continue;
    let values = blockedValues.get(content.fieldName);
    if (values === undefined) {
      values = new Set();
      blockedValues.set(content.fieldName, values);
    }
    for (const value of content.fieldValues) {
      if (values.has(value)) continue;
      values.add(value);
      blockedBy.set(documentKey(content.fieldName, value), rule);
    }
  }
  for (const [fieldName, values] of blockedValues) {
    effect.blocked.push({ fieldName, values: [...values] });
    sources.blocked.push([...values].map((value) => blockedBy.get(documentKey(fieldName, value))!.id));
  }

  const pinnedAt = new Map<number, Ranked>();
  const pinnedValue = new Map<string, Ranked>();
  let redirectBy: Ranked | undefined;
  let facetsBy: Ranked | undefined;
  // Made when a rule of their kind fires: most evaluations fire none.
  let responseValueBy: Map<string, Ranked> | undefined;
  let params: ParamMerge | undefined;
  for (const rule of fired) {
    const { content } = rule;
    switch (content.type) {
      case 'boostList':
      case 'buryList': {
        const boost = content.type === 'boostList';
        const list = boost ? effect.boosts : effect.buries;
        const from = boost ? sources.boosts : sources.buries;
        for (const value of content.fieldValues) {
          list.push({ fieldName: content.fieldName, value, weight: content.boost });
          from.push(rule.id);
        }
        break;
      }
      case 'pinned':
        for (const { value, position } of content.pinnedValues) {
          const what = `pin ${value} at position ${position}`;
          const blocker = blockedBy.get(documentKey(content.fieldName, value));
          if (blocker !== undefined) {
            lost.push(loss(rule, what, blocker, 'the document is blocked, and a block beats a pin'));
            continue;
          }
          const atPosition = pinnedAt.get(position);
          if (atPosition !== undefined) {
            lost.push(
              loss(rule, what, atPosition, ranking(rule, atPosition, `position ${position} is taken`)),
            );
            continue;
          }
          const sameValue = pinnedValue.get(value);
          if (sameValue !== undefined) {
            lost.push(loss(rule, what, sameValue, ranking(rule, sameValue, `${value} is pinned elsewhere`)));
            continue;
          }
          pinnedAt.set(position, rule);
          pinnedValue.set(value, rule);
          effect.pins.push({ value, position });
        }
        break;
      case 'redirect':
        if (redirectBy === undefined) {
          redirectBy = rule;
          effect.redirect = content.url;
        } else {
          lost.push(
            loss(rule, `redirect to ${content.url}`, redirectBy, ranking(rule, redirectBy, 'one redirect')),
          );
        }
        break;
      case 'banner':
        effect.banners.push({ url: content.bannerUrl, zone: content.zone });
        break;
      case 'filterList':
        effect.filters.push({ fieldName: content.fieldName, values: content.fieldValues });
        sources.filters.push(rule.id);
        break;
      case 'boostAttributes':
        for (const { fieldName, value, query, weight } of content.boosts) {
          if (query !== undefined) {
            effect.queryBoosts.push({ query, weight });
            sources.queryBoosts.push(rule.id);
          } else if (weight > 0) {
            effect.boosts.push({ fieldName: fieldName!, value: value!, weight });
            sources.boosts.push(rule.id);
          } else {
            effect.buries.push({ fieldName: fieldName!, value: value!, weight: -weight });
            sources.buries.push(rule.id);
          }
        }
        break;
      case 'setParams':
        params ??= new ParamMerge();
        params.add(rule, lost);
        break;
      case 'responseValue':
        responseValueBy ??= new Map();
        for (const { key, value } of content.responseValues) {
          const holder = responseValueBy.get(key);
          if (holder !== undefined) {
            lost.push(
              loss(rule, `response value ${key}`, holder, ranking(rule, holder, `one value of ${key}`)),
            );
            continue;
          }
          responseValueBy.set(key, rule);
          effect.responseValues[key] = value;
          sources.responseValues[key] = rule.id;
        }
        break;
      case 'setFacetList':
        if (facetsBy === undefined) {
          facetsBy = rule;
          effect.facets = content.facetFields;
          sources.facets = rule.id;
        } else {
          const what = `facets ${content.facetFields.join(', ')}`;
          lost.push(loss(rule, what, facetsBy, ranking(rule, facetsBy, 'one facet order')));
        }
        break;
      case 'blockList':
        break;
    }
  }
  if (params !== undefined) [effect.params, sources.params] = params.result();
  effect.pins.sort((a, b) => a.position - b.position);
  // Each position is taken by one pin, of the rule that holds it.
  for (const pin of effect.pins) sources.pins.push(pinnedAt.get(pin.position)!.id);
  return { effect, lost, sources };
}

/**
 * Solr parameters of `setParams` rules taken in precedence order: a key's replace, default or
 * remove comes from the first rule that sets the key so (a later rule's lose), and every append
 * applies, after them, so that an earlier replace does not wipe what is appended.
 */
class ParamMerge {
  readonly #owner = new Map<string, Ranked>();
  readonly #set: Array<[Effect['params'][number], string]> = [];
  readonly #appended: Array<[Effect['params'][number], string]> = [];

  add(rule: Ranked, lost: LostEffect[]): void {
    if (rule.content.type !== 'setParams') return;
    for (const { key, value, policy } of rule.content.params) {
      const entry = { key, value, policy };
      if (policy === 'append') {
        this.#appended.push([entry, rule.id]);
        continue;
      }
      const owner = this.#owner.get(key);
      if (owner !== undefined && owner !== rule) {
        const what = policy === 'remove' ? `remove ${key}` : `${policy} ${key}=${value}`;
        lost.push(loss(rule, what, owner, ranking(rule, owner, `one rule sets ${key}`)));
        continue;
      }
      this.#owner.set(key, rule);
      this.#set.push([entry, rule.id]);
    }
  }

  result(): [Effect['params'], string[]] {
    const all = [...this.#set, ...this.#appended];
    return [all.map(([entry]) => entry), all.map(([, id]) => id)];
  }
}

function documentKey(fieldName: string, value: string): string {
  return `${fieldName}\u0000${value}`;
}

function loss(rule: Ranked, what: string, winner: Ranked, reason: string): LostEffect {
  return {
    rule: { id: rule.id, name: rule.content.name },
    lost: what,
    to: { id: winner.id, name: winner.content.name },
    reason,
  };
}

/** Why `winner` came first in precedence order. */
function ranking(loser: Ranked, winner: Ranked, what: string): string {
  const [a, b] = [winner.content.precedence, loser.content.precedence];
  return a > b
    ? `${what}: the other rule has a higher precedence (${a} > ${b})`
    : `${what}: same precedence (${a}), the other rule is older`;
}
