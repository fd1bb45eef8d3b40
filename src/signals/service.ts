// The Signals API's rules: every signal of a request is checked before any is stored (a bad
// one refuses the whole request, naming its index and field), the shopper's id and session
// are kept only as keyed hashes and IP addresses never, each signal is tied to its search,
// and a signal whose id is stored already is not stored again.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { type FieldError, ValidationError } from '../http/errors.js';
import type { Database } from '../storage/schema.js';
import { termKey } from '../text/term-key.js';
import { completeSent, inferSearches, needsInference } from './attribution.js';
import { newQueryId } from './query-id.js';
import { insertSignals } from './repository.js';
import type { Signal } from './schemas.js';
import { typeLabel } from './signal-metrics.js';
import type { SignalsParts } from './signals-parts.js';
import type { SignalTable } from './tables.js';
import { timestampMs } from './timestamps.js';

/**
 * Params read into columns, and those never stored: the shopper's id and session (their
 * hashes are) and an IP address, which Fusion's request signals carry as `ip_address`.
 */
const NOT_KEPT_AS_SENT = new Set([
  'query',
  'docId',
  'doc_id',
  'fusion_query_id',
  'user_id',
  'session',
  'position',
  'res_pos',
  'price',
  'quantity',
  'qty',
  'ip_address',
  'ip',
]);
// Errors named in one answer at most: enough to fix a batch, short enough to read.
const MAX_ERRORS = 20;

/** Where signals are posted: an app and one of its collections. */
export interface SignalsTarget {
  readonly app: string;
  readonly collection: string;
}

export class SignalsService {
  constructor(
    private readonly parts: SignalsParts,
    private readonly db: Kysely<Database>,
    private readonly now: () => Date,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Accepts a batch of signals: all checked first (400 naming each bad one's index and field,
   * nothing stored), then written before the answer, or with `async` after it.
   */
  async post(
    target: SignalsTarget,
    signals: readonly Signal[],
    options: { async: boolean },
  ): Promise<number> {
    const rows = this.rows(target, signals);
    const writing = this.write(target, rows);
    if (options.async) {
      this.parts.track(
        writing.catch((error) => {
          this.parts.metrics.rejected.inc({ reason: 'not-written' }, rows.length);
          this.log.error(
            { err: error, ...target, signals: rows.length },
            'signals posted with async=true not written',
          );
        }),
      );
    } else await writing;
    for (const row of rows) this.parts.metrics.accepted.inc({ type: typeLabel(row.type) });
    return rows.length;
  }

  /** The rows of a batch; ValidationError naming every timestamp that cannot be read. */
  private rows({ app, collection }: SignalsTarget, signals: readonly Signal[]): SignalTable[] {
    const receivedAt = this.now().getTime();
    const errors: FieldError[] = [];
    const rows = signals.map((signal, i) => {
      const at = signal.timestamp === undefined ? receivedAt : timestampMs(signal.timestamp);
      if (at === undefined)
        errors.push({
          field: `[${i}].timestamp`,
          message: `[${i}].timestamp must be an ISO 8601 date-time or epoch milliseconds`,
        });
      return this.row(app, collection, signal, at ?? receivedAt, receivedAt);
    });
    if (errors.length > 0) throw new ValidationError(errors.slice(0, MAX_ERRORS));
    return rows;
  }

  private row(app: string, collection: string, signal: Signal, at: number, receivedAt: number): SignalTable {
    const { params } = signal;
    const { hasher } = this.parts;
    const kept = Object.fromEntries(Object.entries(params).filter(([name]) => !NOT_KEPT_AS_SENT.has(name)));
    const query = params.query ?? null;
    return {
      // Ids are the shop's, unique within its app and collection: another app's equal id is another signal.
      id: `${app}/${collection}/${signal.id ?? newQueryId()}`,
      app,
      collection,
      type: signal.type,
      at,
      received_at: receivedAt,
      doc_id: params.docId ?? params.doc_id ?? null,
      query,
      query_key: query === null ? null : termKey(query),
      query_id: params.fusion_query_id ?? null,
      attribution: params.fusion_query_id === undefined ? null : 'sent',
      position: params.position ?? params.res_pos ?? null,
      price: params.price ?? null,
      quantity: params.quantity ?? params.qty ?? null,
      user_hash: hasher.hash(params.user_id),
      session_hash: hasher.hash(params.session),
      params: JSON.stringify(kept),
    };
  }

  /** Ties the signals to their searches, then stores them; a stored id is left as it is. */
  private async write(target: SignalsTarget, rows: SignalTable[]): Promise<void> {
    const lookups = rows.some((row) => needsInference(row) || row.attribution === 'sent');
    // A search answered on this node a moment ago may still wait in the batch: written first,
    // so the click finds it. (One answered on another node is written there within a second.)
    if (lookups) await this.parts.searchSignals.flush();
    await inferSearches(this.db, target.app, target.collection, rows);
    await completeSent(this.db, target.app, rows);
    await insertSignals(this.db, rows);
    for (const row of rows) {
      if (row.doc_id !== null) this.parts.metrics.attribution.inc({ attribution: row.attribution ?? 'none' });
    }
  }
}
