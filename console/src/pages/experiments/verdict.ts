// What an experiment's figures say, in the merchandiser's words: whether a variant does
// better or worse than the control on one rate, and whether that difference is clear yet.
// It imports nothing from the browser, so its words are tested without one.

/** The rates an experiment follows, by what a shopper did. */
export type Metric = 'clickThrough' | 'conversion' | 'noResult';

/** The level the console calls a difference clear at: the same 95 % as the intervals shown. */
export const CLEAR_BELOW = 0.05;

/** What "more" and "fewer" of each rate are, said of a variant. */
const VERBS: Record<Metric, { more: string; fewer: string; same: string; what: string }> = {
  clickThrough: {
    what: 'clicks',
    more: 'gets more clicks than',
    fewer: 'gets fewer clicks than',
    same: 'gets as many clicks as',
  },
  conversion: {
    what: 'purchases',
    more: 'gets more purchases than',
    fewer: 'gets fewer purchases than',
    same: 'gets as many purchases as',
  },
  noResult: {
    what: 'searches that find nothing',
    more: 'finds nothing more often than',
    fewer: 'finds nothing less often than',
    same: 'finds nothing as often as',
  },
};

/** One variant against the control on one rate, as the metrics give it. */
export interface Comparison {
  metric: Metric;
  /** The variant's and the control's names. */
  variant: string;
  control: string;
  /** The variant's rate minus the control's (fractions), null while either has no search. */
  difference: number | null;
  /** Two-sided p-value of that difference, null while it cannot be computed. */
  pValue: number | null;
  /** Whether the service calls the difference significant; without it, p below CLEAR_BELOW. */
  clear?: boolean;
  /** About how many more searches (in all) the estimate says are needed; 0 or null: none. */
  moreSearches: number | null;
}

/**
 * A p-value as people read it: two significant digits (three where two would round a clear
 * one up to the level), tiny ones as "p < 0.001".
 */
export function pValueText(p: number): string {
  if (p < 0.001) return 'p < 0.001';
  const shown = Number(p.toPrecision(2));
  return `p = ${p < CLEAR_BELOW && shown >= CLEAR_BELOW ? Number(p.toPrecision(3)) : shown}`;
}

/**
 * The sentence for a comparison: "B gets more clicks than A; the difference is clear
 * (p = 0.01)." or "… so far; too early to tell: about 1,200 more searches needed."
 */
export function verdict(c: Comparison): string {
  if (c.difference === null || c.pValue === null) {
    return `Too early to tell: ${c.variant} or ${c.control} has no counted search yet.`;
  }
  const verbs = VERBS[c.metric];
  const verb = c.difference > 0 ? verbs.more : c.difference < 0 ? verbs.fewer : verbs.same;
  const p = pValueText(c.pValue);
  if (c.clear ?? c.pValue < CLEAR_BELOW)
    return `${c.variant} ${verb} ${c.control}; the difference is clear (${p}).`;
  const more = c.moreSearches ?? 0;
  if (more > 0) {
    const soFar = c.difference === 0 ? '' : ' so far';
    return `${c.variant} ${verb} ${c.control}${soFar}; too early to tell: about ${Math.ceil(more).toLocaleString('en')} more searches needed (${p}).`;
  }
  const none = `No clear difference between ${c.variant} and ${c.control} in ${verbs.what} (${p})`;
  if (c.difference === 0) return `${none}.`;
  return `${none}: ${c.variant} ${verb} ${c.control} by too little to tell apart.`;
}
