// The analytics answers computed the plain way, straight from the raw rows a test seeded:
// the rollups' answers must equal these.
import type { SeedSearch, SeedSignal } from './seed.js';

const DAY = 86_400_000;
const rate = (part: number, whole: number) => (whole > 0 ? part / whole : null);
const keyOf = (query: string) => query.trim().toLowerCase();

export interface Seeded {
  searches: Array<SeedSearch & { id: string }>;
  signals: SeedSignal[];
}

/** The counted searches of the profile within [from, to] (UTC days, inclusive), with their signals. */
function within(seeded: Seeded, from: number, to: number, profile = 'web') {
  return seeded.searches
    .filter((s) => s.counted !== false && (s.profile ?? 'web') === profile && s.at >= from && s.at < to + DAY)
    .map((s) => ({ search: s, signals: seeded.signals.filter((g) => g.queryId === s.id) }));
}

const has = (signals: SeedSignal[], type: string) => signals.some((g) => g.type === type);
const byCountThenName = <T extends { count: number; name: string }>(a: T, b: T) =>
  b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function perKey(seeded: Seeded, from: number, to: number) {
  const keys = new Map<string, ReturnType<typeof within>>();
  for (const entry of within(seeded, from, to)) {
    const key = keyOf(entry.search.query);
    keys.set(key, [...(keys.get(key) ?? []), entry]);
  }
  return [...keys].map(([name, entries]) => {
    const latest = entries.reduce((a, b) =>
      b.search.at > a.search.at || (b.search.at === a.search.at && b.search.hits > a.search.hits) ? b : a,
    );
    const clicks = entries.flatMap((e) => e.signals.filter((g) => g.type === 'click').map((g) => ({ e, g })));
    const positions = clicks
      .map(({ e, g }) => {
        const index = g.docId === undefined ? -1 : (e.search.docIds ?? []).indexOf(g.docId);
        return index >= 0 ? index + 1 : g.position !== undefined && g.position >= 1 ? g.position : undefined;
      })
      .filter((p): p is number => p !== undefined);
    const clickSearches = entries.filter((e) => has(e.signals, 'click')).length;
    const conversions = entries.filter((e) => has(e.signals, 'purchase')).length;
    const carts = entries.filter((e) => has(e.signals, 'cart')).length;
    return {
      name,
      count: entries.length,
      nbHits: latest.search.hits,
      clickCount: clicks.length,
      clickSearches,
      averageClickPosition:
        positions.length > 0 ? positions.reduce((a, b) => a + b, 0) / positions.length : null,
      conversions,
      carts,
    };
  });
}

export function topSearches(seeded: Seeded, from: number, to: number) {
  return perKey(seeded, from, to)
    .sort(byCountThenName)
    .map((k) => ({
      search: k.name,
      count: k.count,
      nbHits: k.nbHits,
      clickCount: k.clickCount,
      clickThroughRate: rate(k.clickSearches, k.count),
      averageClickPosition: k.averageClickPosition,
      conversionCount: k.conversions,
      conversionRate: rate(k.conversions, k.count),
      addToCartCount: k.carts,
      addToCartRate: rate(k.carts, k.count),
    }));
}

export function noResults(seeded: Seeded, from: number, to: number) {
  return perKey(seeded, from, to)
    .filter((k) => k.nbHits === 0)
    .sort(byCountThenName)
    .map((k) => ({ search: k.name, count: k.count }));
}

export function noClicks(seeded: Seeded, from: number, to: number) {
  return perKey(seeded, from, to)
    .filter((k) => k.nbHits > 0 && k.clickSearches === 0)
    .sort(byCountThenName)
    .map((k) => ({ search: k.name, count: k.count, nbHits: k.nbHits }));
}

export function rates(seeded: Seeded, from: number, to: number, interval: 'day' | 'hour') {
  const step = interval === 'day' ? DAY : 3_600_000;
  const dates = [];
  for (let at = from; at < to + DAY; at += step) {
    const entries = within(seeded, from, to).filter((e) => e.search.at >= at && e.search.at < at + step);
    const n = entries.length;
    const iso = new Date(at).toISOString();
    dates.push({
      date: interval === 'day' ? iso.slice(0, 10) : `${iso.slice(0, 13)}:00:00Z`,
      searchCount: n,
      noResultRate: rate(entries.filter((e) => e.search.hits === 0).length, n),
      clickThroughRate: rate(entries.filter((e) => has(e.signals, 'click')).length, n),
      conversionRate: rate(entries.filter((e) => has(e.signals, 'purchase')).length, n),
      addToCartRate: rate(entries.filter((e) => has(e.signals, 'cart')).length, n),
    });
  }
  return dates;
}

export function rules(seeded: Seeded, from: number, to: number, names: Record<string, string> = {}) {
  const fired = new Map<string, ReturnType<typeof within>>();
  for (const entry of within(seeded, from, to))
    for (const id of new Set(entry.search.ruleIds ?? [])) fired.set(id, [...(fired.get(id) ?? []), entry]);
  return [...fired]
    .map(([name, entries]) => ({ name, count: entries.length, entries }))
    .sort(byCountThenName)
    .map(({ name, count, entries }) => ({
      id: name,
      name: names[name] ?? null,
      firedCount: count,
      clickThroughRate: rate(entries.filter((e) => has(e.signals, 'click')).length, count),
      conversionRate: rate(entries.filter((e) => has(e.signals, 'purchase')).length, count),
      addToCartRate: rate(entries.filter((e) => has(e.signals, 'cart')).length, count),
    }));
}

export function documents(seeded: Seeded, from: number, to: number) {
  const docs = new Map<string, { clickCount: number; conversionCount: number; addToCartCount: number }>();
  for (const entry of within(seeded, from, to))
    for (const g of entry.signals) {
      if (g.docId === undefined || !['click', 'purchase', 'cart'].includes(g.type)) continue;
      const doc = docs.get(g.docId) ?? { clickCount: 0, conversionCount: 0, addToCartCount: 0 };
      if (g.type === 'click') doc.clickCount++;
      else if (g.type === 'purchase') doc.conversionCount++;
      else if (g.type === 'cart') doc.addToCartCount++;
      docs.set(g.docId, doc);
    }
  return [...docs]
    .map(([docId, d]) => ({ docId, ...d }))
    .sort(
      (a, b) =>
        b.clickCount - a.clickCount ||
        b.conversionCount - a.conversionCount ||
        (a.docId < b.docId ? -1 : a.docId > b.docId ? 1 : 0),
    );
}
