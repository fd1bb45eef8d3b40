/** Deterministic generator of shop-like typeahead terms for benchmarks. */

// The same seeded generator as every other scenario, so every run measures the same data.
import { seededRandom } from './lib.js';

export { seededRandom };

const BRANDS = [
  'Bosch',
  'Miele',
  'Siemens',
  'Philips',
  'Braun',
  'Krups',
  'DeLonghi',
  'Tefal',
  'Rowenta',
  'WMF',
];
const NOUNS = [
  'kettle',
  'toaster',
  'blender',
  'mixer',
  'vacuum',
  'iron',
  'fan',
  'heater',
  'lamp',
  'shaver',
  'grill',
  'oven',
  'fridge',
  'freezer',
  'cooker',
  'juicer',
  'scale',
  'dryer',
  'washer',
  'radio',
  'Kaffeemaschine',
  'Wasserkocher',
  'Stabmixer',
  'Küchenmaschine',
  'Bügeleisen',
  'Staubsauger',
  'cafetière',
  'grille-pain',
  'mixeur',
  'aspirateur',
  'sèche-cheveux',
  'réfrigérateur',
];
const ADJECTIVES = [
  'electric',
  'Électrique',
  'compact',
  'cordless',
  'stainless',
  'smart',
  'mini',
  'pro',
  'XL',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** A term like "Bosch cordless kettle 1700" or "smart Wasserkocher 12". */
export function randomTerm(random: () => number): string {
  const parts: string[] = [];
  if (random() < 0.6) parts.push(pick(random, BRANDS));
  if (random() < 0.5) parts.push(pick(random, ADJECTIVES));
  parts.push(pick(random, NOUNS));
  if (random() < 0.9) parts.push(String(Math.floor(random() * 100_000)));
  const term = parts.join(' ');
  // Top-searched terms are typed by shoppers, mostly in lower case.
  return random() < 0.3 ? term.toLowerCase() : term;
}

/** `count` random terms; a few share a key, as real lists do. */
export function randomTerms(random: () => number, count: number): string[] {
  return Array.from({ length: count }, () => randomTerm(random));
}
