import { Counter, type Registry } from 'prom-client';

/** The built-in signal types; every other type is counted as `custom` (types are the shops' own words). */
const KNOWN_TYPES = new Set(['click', 'cart', 'purchase']);

/** The label a signal type is counted under: bounded, whatever types shops invent. */
export function typeLabel(type: string): string {
  return KNOWN_TYPES.has(type) ? type : 'custom';
}

/** The signals' series: posted signals accepted and refused, their attribution and writes, response signals written. */
export class SignalMetrics {
  readonly accepted: Counter<'type'>;
  readonly rejected: Counter<'reason'>;
  readonly attribution: Counter<'attribution'>;
  readonly searchSignals: Counter<'outcome'>;
  readonly writes: Counter;

  constructor(registry: Registry) {
    this.accepted = new Counter({
      name: 'searchdeck_signals_accepted_total',
      help: 'Signals accepted by the Signals API, by type (click, cart, purchase, custom)',
      labelNames: ['type'],
      registers: [registry],
    });
    this.rejected = new Counter({
      name: 'searchdeck_signals_rejected_total',
      help: 'Signals refused by the Signals API (every signal of a refused request), by reason (invalid, unauthorized, not-written)',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.attribution = new Counter({
      name: 'searchdeck_signals_attribution_total',
      help: 'Accepted signals naming a document, by how they were tied to a search (sent, inferred, none)',
      labelNames: ['attribution'],
      registers: [registry],
    });
    this.writes = new Counter({
      name: 'searchdeck_signals_writes_total',
      help: 'Transactions that stored posted signals: the requests that arrive together share one',
      registers: [registry],
    });
    this.searchSignals = new Counter({
      name: 'searchdeck_search_signals_total',
      help: 'Response signals of the query endpoint, by outcome (written, dropped: too many waiting, lost: the write failed)',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }
}
