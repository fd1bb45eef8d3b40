// The sample catalog: products of a small home-and-office shop, the same on every machine for
// the same size and seed, so that tests and benchmarks can name what a query finds. Its words
// are chosen for the examples: "laptop" and "notebook" are different products (a synonym
// changes what is found), brands and categories are exact values rules can name.

import { seededRandom } from './seeded-random.js';

/** A product as the products configset stores it (solr/configsets/products). */
export interface Product {
  id: string;
  name: string;
  description: string;
  brand: string;
  category: string;
  price: number;
  in_stock: boolean;
  popularity: number;
}

/** How many products the demo and the tests index: a few thousand, indexed in seconds. */
export const SAMPLE_CATALOG_SIZE = 3_000;

interface Category {
  name: string;
  noun: string;
  /** The usual price; a product's price lies between 0.6 and 1.8 times it. */
  price: number;
  features: readonly string[];
}

export const CATEGORIES: readonly Category[] = [
  { name: 'kettles', noun: 'kettle', price: 40, features: ['boils a litre in two minutes', 'keeps warm'] },
  { name: 'toasters', noun: 'toaster', price: 35, features: ['two wide slots', 'defrost setting'] },
  {
    name: 'coffee machines',
    noun: 'coffee machine',
    price: 180,
    features: ['espresso and lungo', 'milk frother'],
  },
  { name: 'blenders', noun: 'blender', price: 70, features: ['crushes ice', 'glass jug'] },
  { name: 'laptops', noun: 'laptop', price: 900, features: ['14 inch screen', 'all-day battery'] },
  { name: 'headphones', noun: 'headphones', price: 120, features: ['noise cancelling', 'wireless'] },
  { name: 'phones', noun: 'smartphone', price: 600, features: ['dual camera', 'fast charging'] },
  { name: 'monitors', noun: 'monitor', price: 250, features: ['27 inch', 'adjustable stand'] },
  { name: 'keyboards', noun: 'keyboard', price: 60, features: ['mechanical keys', 'backlit'] },
  { name: 'notebooks', noun: 'notebook', price: 8, features: ['dotted pages', 'hard cover'] },
  { name: 'mugs', noun: 'mug', price: 12, features: ['dishwasher safe', 'holds 350 ml'] },
  { name: 'backpacks', noun: 'backpack', price: 75, features: ['laptop sleeve', 'water resistant'] },
];

export const BRANDS = [
  'Acme',
  'Bolt',
  'Cobalt',
  'Dune',
  'Ember',
  'Fjord',
  'Glacier',
  'Harbor',
  'Indigo',
  'Juniper',
] as const;

export const COLOURS = ['red', 'blue', 'green', 'black', 'white', 'silver', 'yellow', 'grey'] as const;
export const STYLES = ['compact', 'classic', 'pro', 'mini', 'smart', 'travel', 'deluxe', 'eco'] as const;

/** Products `P00001`, `P00002`, …: `count` of them, from `seed`. */
export function* sampleCatalog(count: number, seed = 1): Generator<Product> {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  for (let i = 1; i <= count; i++) {
    const category = pick(CATEGORIES);
    const brand = pick(BRANDS);
    const colour = pick(COLOURS);
    const style = pick(STYLES);
    const feature = pick(category.features);
    const factor = 0.6 + random() * 1.2;
    yield {
      id: `P${String(i).padStart(5, '0')}`,
      name: `${brand} ${capitalised(style)} ${capitalised(colour)} ${capitalised(category.noun)}`,
      description: `A ${style} ${colour} ${category.noun} by ${brand}: ${feature}.`,
      brand,
      category: category.name,
      price: Math.max(1, Math.round(category.price * factor)) - 0.01,
      in_stock: random() < 0.85,
      // Few products are very popular: a skewed spread between 0 and 1000.
      popularity: Math.floor(random() ** 3 * 1000),
    };
  }
}

function capitalised(words: string): string {
  return words.replace(/\b\w/g, (c) => c.toUpperCase());
}
