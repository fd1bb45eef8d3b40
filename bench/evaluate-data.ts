// The data of the evaluation benchmark, generated deterministically: the studio's rules and
// rewrites, and shopper queries of which about a third fire a rule.
import type { LiveRewrite } from '../src/rewrites/rewrite.js';
import { seededRandom } from './lib.js';

export const HOT = Array.from({ length: 300 }, (_, i) => `hot${i}`);
export const COLD = Array.from({ length: 300 }, (_, i) => `cold${i}`);
/** The query conditions of the studio's rules: pairs of hot words. */
export const HOT_PAIRS = (() => {
  const random = seededRandom(11);
  return Array.from(
    { length: 3_000 },
    () => `${HOT[Math.floor(random() * HOT.length)]} ${HOT[Math.floor(random() * HOT.length)]}`,
  );
})();

/** 2,000 live rewrites of every kind; misspellings and removed words are what shoppers type. */
export function benchRewrites(): LiveRewrite[] {
  const rewrites: LiveRewrite[] = [];
  const id = () => `rw-${rewrites.length}`;
  for (let i = 0; i < 100; i++)
    rewrites.push({ id: id(), type: 'removeWords', words: [`noise${i}`, i === 0 ? 'cheap' : `buy${i}`] });
  for (let i = 0; i < 1_000; i++) {
    const word = i < HOT.length ? HOT[i]! : COLD[i % COLD.length]!;
    rewrites.push({
      id: id(),
      type: 'misspelling',
      misspelling: `${word}z${i >= 600 ? i : ''}`,
      correction: word,
    });
  }
  for (let i = 0; i < 500; i++)
    rewrites.push({ id: id(), type: 'synonym', input: COLD[i % COLD.length]!, synonyms: [`alt${i}`] });
  for (let i = 0; i < 200; i++)
    rewrites.push({ id: id(), type: 'phrase', phrase: `${COLD[i]} ${COLD[i + 1]}`, boost: 2 });
  for (let i = 0; i < 200; i++) {
    rewrites.push({
      id: id(),
      type: 'headTail',
      query: `${COLD[i]} ${COLD[i + 1]} ${COLD[i + 2]}`,
      head: COLD[i]!,
    });
  }
  return rewrites;
}

/** A shopper query: a third are a rule's pair (some misspelled or with a removed word), the rest cold words. */
export function shopperQueries(count: number): string[] {
  const random = seededRandom(5);
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  return Array.from({ length: count }, () => {
    if (random() < 0.34) {
      const [a, b] = pick(HOT_PAIRS).split(' ');
      const first = random() < 0.2 ? `${a}z` : a;
      return random() < 0.2 ? `cheap ${first} ${b}` : `${first} ${b}`;
    }
    const words = [pick(COLD), pick(COLD)];
    if (random() < 0.3) words.push(pick(COLD));
    return words.join(' ');
  });
}
