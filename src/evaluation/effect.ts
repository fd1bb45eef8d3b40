// The combined effect of the rules that fire, taken in precedence order: where two rules
// act against each other, the one earlier in that order wins, and a block beats a pin.
import type { RuleContent } from '../rules/rule.js';
import type { Effect, EffectSources, LostEffect } from './evaluation.js';

interface Ranked {
  id: string;
  content: RuleContent;
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
  const effect: Effect = { blocked: [], boosts: [], buries: [], pins: [], redirect: null, banners: [] };
  const sources: EffectSources = { blocked: [], boosts: [], buries: [], pins: [] };
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
      case 'blockList':
        break;
    }
  }
  effect.pins.sort((a, b) => a.position - b.position);
  // Each position is taken by one pin, of the rule that holds it.
  for (const pin of effect.pins) sources.pins.push(pinnedAt.get(pin.position)!.id);
  return { effect, lost, sources };
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
