// The query benchmark's data, from the sample catalog's own words: rules that fire on what
// shoppers of that catalog type and act on its products, and the shoppers' queries, of which
// about a third are a rule's query.
import { BRANDS, CATEGORIES, COLOURS, STYLES } from '../src/demo/catalog.js';
import type { RuleVocabulary } from './evaluate.js';
import { seededRandom } from './lib.js';

const NOUNS = CATEGORIES.map((c) => c.noun);
const lower = (word: string) => word.toLowerCase();

/** Queries a rule fires on: "red kettle", "acme kettle", "acme red kettle", … (about 1,300). */
const CONDITIONS: readonly string[] = NOUNS.flatMap((noun) => [
  ...COLOURS.map((colour) => `${colour} ${noun}`),
  ...STYLES.map((style) => `${style} ${noun}`),
  ...BRANDS.flatMap((brand) => [
    `${lower(brand)} ${noun}`,
    ...COLOURS.map((colour) => `${lower(brand)} ${colour} ${noun}`),
  ]),
]);

/** Rules over the catalog's queries, acting on its products `P00001`…`P<size>`. */
export function catalogVocabulary(size: number): RuleVocabulary {
  return {
    conditions: CONDITIONS,
    document: (random) => `P${String(1 + Math.floor(random() * size)).padStart(5, '0')}`,
  };
}

/** Shoppers' queries: a third a rule's query, the rest other words of the catalog, some finding nothing. */
export function catalogQueries(count: number): string[] {
  const random = seededRandom(7);
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  return Array.from({ length: count }, () => {
    const roll = random();
    if (roll < 0.34) return pick(CONDITIONS);
    if (roll < 0.6) return pick(NOUNS);
    if (roll < 0.8) return `${pick(STYLES)} ${lower(pick(BRANDS))}`;
    if (roll < 0.95) return `${pick(COLOURS)} ${pick(STYLES)}`;
    return `${pick(NOUNS)} zq${Math.floor(random() * 1000)}`;
  });
}
