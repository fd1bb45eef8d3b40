// An experiment as its set-up form holds it (texts, as typed) and as the API takes it, both
// ways; the words for a variant's changes and for the API's field names in its messages.
// It imports nothing from the browser, so it is tested without one.

export type Policy = 'replace' | 'append' | 'remove' | 'default';

/** How a parameter change meets the profile's and the shopper's values, in words. */
export const POLICY_WORDS: [Policy, string][] = [
  ['replace', 'Replace the value'],
  ['append', 'Add to the values'],
  ['default', 'Only if not set'],
  ['remove', 'Remove the parameter'],
];

export interface ParamDraft {
  key: string;
  value: string;
  policy: Policy;
}

export interface VariantDraft {
  /** The variant's short id (what answers and signals carry); follows the name until typed. */
  id: string;
  name: string;
  /** The share as typed: a number in proportion to the others. */
  weight: string;
  /** Empty: the profile's own studio. */
  studio: string;
  rewrites: boolean;
  params: ParamDraft[];
}

export interface ExperimentDraft {
  id: string;
  description: string;
  profile: string;
  uniqueIdParameter: string;
  variants: VariantDraft[];
}

/** What the API takes (its `NewExperimentBody`), written out so this file imports nothing. */
export interface ExperimentBody {
  id: string;
  description?: string;
  uniqueIdParameter?: string;
  variants: {
    id: string;
    name?: string;
    params?: ParamDraft[];
    weight: number;
    studio?: string;
    rewrites?: boolean;
  }[];
  enabled?: boolean;
}

/** A short id from a name: "Sort by price" → "sort-by-price". */
export function idFrom(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 128);
}

export function newVariant(index: number): VariantDraft {
  const name = String.fromCharCode(65 + (index % 26));
  return { id: idFrom(name), name, weight: '50', studio: '', rewrites: true, params: [] };
}

/** A fresh experiment on `profile`: A (the control, the profile as it is) against B, half each. */
export function newDraft(profile: string, uniqueIdParameter: string): ExperimentDraft {
  return { id: '', description: '', profile, uniqueIdParameter, variants: [newVariant(0), newVariant(1)] };
}

/** A number typed, or the text when it is not one (for the API to name). */
const numberOr = (text: string): number =>
  (text.trim() === '' || Number.isNaN(Number(text)) ? text : Number(text)) as number;

/** The body the API takes; what the form cannot tell is sent as typed, for the API to name. */
export function bodyOf(draft: ExperimentDraft): ExperimentBody {
  return {
    id: draft.id,
    ...(draft.description.trim() ? { description: draft.description.trim() } : {}),
    ...(draft.uniqueIdParameter.trim() ? { uniqueIdParameter: draft.uniqueIdParameter.trim() } : {}),
    variants: draft.variants.map((v) => ({
      id: v.id,
      ...(v.name.trim() ? { name: v.name.trim() } : {}),
      weight: numberOr(v.weight),
      ...(v.studio ? { studio: v.studio } : {}),
      rewrites: v.rewrites,
      params: v.params.map((p) => ({
        key: p.key.trim(),
        value: p.policy === 'remove' ? '' : p.value,
        policy: p.policy,
      })),
    })),
  };
}

/** An experiment as read, back in the form (to edit a stopped one). */
export function draftOf(
  experiment: {
    id: string;
    description?: string;
    uniqueIdParameter: string;
    variants: {
      id: string;
      name?: string;
      weight: number;
      studio?: string;
      rewrites: boolean;
      params: ParamDraft[];
    }[];
  },
  profile: string,
): ExperimentDraft {
  return {
    id: experiment.id,
    description: experiment.description ?? '',
    profile,
    uniqueIdParameter: experiment.uniqueIdParameter,
    variants: experiment.variants.map((v) => ({
      id: v.id,
      name: v.name ?? v.id,
      weight: String(v.weight),
      studio: v.studio ?? '',
      rewrites: v.rewrites,
      params: v.params.map((p) => ({ ...p })),
    })),
  };
}

/** Each variant's share of shoppers as a percentage, or null while the weights do not add up. */
export function shares(weights: readonly (number | string)[]): (number | null)[] {
  const numbers = weights.map((w) => Number(w));
  const sum = numbers.reduce((a, b) => a + (Number.isFinite(b) && b > 0 ? b : 0), 0);
  return numbers.map((w) => (sum > 0 && Number.isFinite(w) && w >= 0 ? (w / sum) * 100 : null));
}

/** A variant's name as the page says it ("B"), its id when it has none. */
export const variantName = (v: { id: string; name?: string }) => v.name || v.id;

/** What a variant changes against the profile, in words, one item a change. */
export function changesOf(
  variant: { studio?: string; rewrites: boolean; params: ParamDraft[] },
  profileStudio: string | undefined,
): string[] {
  const said: string[] = [];
  if (variant.studio && variant.studio !== profileStudio)
    said.push(
      `the rules and rewrites of the studio ${variant.studio}${profileStudio ? ` instead of ${profileStudio}` : ''}`,
    );
  if (!variant.rewrites) said.push('no query rewrites (synonyms, misspellings, …)');
  for (const p of variant.params) {
    if (p.policy === 'remove') said.push(`Solr parameter ${p.key} removed`);
    else if (p.policy === 'append') said.push(`Solr parameter ${p.key} gets ${p.value} added`);
    else if (p.policy === 'default') said.push(`Solr parameter ${p.key} = ${p.value} where not set`);
    else said.push(`Solr parameter ${p.key} = ${p.value}`);
  }
  return said;
}

const TOP_LABELS: Record<string, string> = {
  id: 'Experiment name',
  description: 'What it tests',
  uniqueIdParameter: 'Shopper parameter',
  variants: 'Variants',
  experiment: 'Experiment',
};
const VARIANT_LABELS: Record<string, string> = {
  id: 'Short id',
  name: 'Name',
  weight: 'Share of shoppers',
  studio: 'Rules and rewrites from',
  rewrites: 'Query rewrites',
  params: 'Solr parameter changes',
};
const PARAM_LABELS: Record<string, string> = { key: 'Parameter', value: 'Value', policy: 'How' };

/**
 * The label of a field the API names in a message: `variants[1].params[0].key` is "Variant 2,
 * parameter change 1: Parameter".
 */
export function labelOf(field: string): string {
  const param = field.match(/^variants\[(\d+)\]\.params\[(\d+)\](?:\.(\w+))?/);
  if (param) {
    const where = `Variant ${Number(param[1]) + 1}, parameter change ${Number(param[2]) + 1}`;
    return param[3] ? `${where}: ${PARAM_LABELS[param[3]] ?? param[3]}` : where;
  }
  const variant = field.match(/^variants\[(\d+)\](?:\.(\w+))?/);
  if (variant) {
    const where = `Variant ${Number(variant[1]) + 1}`;
    return variant[2] ? `${where}: ${VARIANT_LABELS[variant[2]] ?? variant[2]}` : where;
  }
  return TOP_LABELS[field] ?? field;
}
