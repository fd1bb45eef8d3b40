// The Signals API's rules: every signal of a request is checked before any is stored (a bad
// one refuses the whole request, naming its index and field), the shopper's id and session
// are kept only as keyed hashes and IP addresses never, each signal is tied to its search,
// and a signal whose id is stored already is not stored again.
import type { FastifyBaseLogger } from 'fastify';
import { type FieldError, ValidationError } from '../http/errors.js';
import { termKey } from '../text/term-key.js';
import { newSignalIds } from './query-id.js';
import type { Signal } from './schemas.js';
import { typeLabel } from './signal-metrics.js';
import type { SignalsTarget } from './signal-writer.js';
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

export class SignalsService {
  constructor(
    private readonly parts: SignalsParts,
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
    // Written with the other requests' signals that arrive meanwhile (signal-writer.ts).
    const writing = this.parts.writer.write(target, rows);
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
    const byType = new Map<string, number>();
    for (const row of rows) byType.set(typeLabel(row.type), (byType.get(typeLabel(row.type)) ?? 0) + 1);
    for (const [type, count] of byType) this.parts.metrics.accepted.inc({ type }, count);
    return rows.length;
  }

  /** The rows of a batch; ValidationError naming every timestamp that cannot be read. */
  private rows({ app, collection }: SignalsTarget, signals: readonly Signal[]): SignalTable[] {
    const receivedAt = this.now().getTime();
    const errors: FieldError[] = [];
    const ids = newSignalIds(
      signals.reduce((n, signal) => (signal.id === undefined ? n + 1 : n), 0),
      receivedAt,
    ).reverse();
    const rows = signals.map((signal, i) => {
      const at = signal.timestamp === undefined ? receivedAt : timestampMs(signal.timestamp);
      if (at === undefined)
        errors.push({
          field: `[${i}].timestamp`,
          message: `[${i}].timestamp must be an ISO 8601 date-time or epoch milliseconds`,
        });
      const id = signal.id ?? ids.pop()!;
      return this.row(app, collection, signal, id, at ?? receivedAt, receivedAt);
    });
    if (errors.length > 0) throw new ValidationError(errors.slice(0, MAX_ERRORS));
    return rows;
  }

  private row(
    app: string,
    collection: string,
    signal: Signal,
    id: string,
    at: number,
    receivedAt: number,
  ): SignalTable {
    const { params } = signal;
    const { hasher } = this.parts;
    const kept: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(params)) if (!NOT_KEPT_AS_SENT.has(name)) kept[name] = value;
    const query = params.query ?? null;
    return {
      // Ids are the shop's, unique within its app and collection: another app's equal id is another signal.
      id: `${app}/${collection}/${id}`,
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
}
