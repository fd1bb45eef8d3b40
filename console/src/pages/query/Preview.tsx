// The results of a query as a shopper would see them, as product cards: one column for the
// live rules, one for the staging rules (drafts included), side by side where there is room
// and one above the other where there is not. Each card says what the rules did to the
// product; the banners are drawn and the redirect is a link. From a card, "Pin here",
// "Block" and "Boost" put the product in a draft rule for the query.
import { useState } from 'react';
import type { ErrorBody } from '../../api/client';
import {
  type Answer,
  bannersOf,
  type Display,
  type Doc,
  type Fusion,
  idOf,
  imageOf,
  marksOf,
  ordinal,
  priceOf,
  redirectRule,
  titleOf,
  valueText,
} from './answer';
import type { CardAction } from './draft-rules';
import './preview.css';

/** A column's state: nothing asked yet, waiting (with the answer before, if any), answered or failed. */
export type ColumnState =
  | { status: 'idle' }
  | { status: 'loading'; before?: Answer }
  | { status: 'done'; answer: Answer }
  | { status: 'failed'; error: ErrorBody };

/**
 * What the query endpoint's own failures mean, said before the reason it gives (which names the
 * Solr node, or ZooKeeper when the cluster's live nodes could not be found in time).
 */
export const LEADS: Record<string, string> = {
  'solr-timeout': 'The search cluster did not answer in time.',
  'solr-failed': 'The search cluster could not answer this query.',
  'solr-rejected': 'The search cluster refused this query.',
};

export function Failure({ error }: { error: ErrorBody }) {
  return (
    <p className="error" role="alert">
      {error.code !== undefined && LEADS[error.code] && <strong>{LEADS[error.code]} </strong>}
      {error.message} ({error.status} {error.code})
    </p>
  );
}

/** What a card offers: the actions, while a change is under way, disabled (with why when they cannot be used). */
export interface CardActions {
  run(action: CardAction, doc: Doc): void;
  busy: boolean;
  /** Why the actions cannot be used for this query (a query too long, no query), or undefined. */
  unavailable?: string;
}

interface ColumnProps {
  title: string;
  hint: string;
  state: ColumnState;
  display: Display | undefined;
  actions: CardActions | undefined;
  /** The ids in the live column, in order: a staging card says where the product is live. */
  livePositions?: Map<string, number>;
}

export function Column({ title, hint, state, display, actions, livePositions }: ColumnProps) {
  const answer =
    state.status === 'done' ? state.answer : state.status === 'loading' ? state.before : undefined;
  const loading = state.status === 'loading';
  const heading = `${title} results`;
  return (
    <section className="preview-column" aria-label={heading} aria-busy={loading}>
      <h3>{title}</h3>
      <p className="hint">{hint}</p>
      {loading && (
        <p className="preview-loading" role="status">
          {answer ? 'Updating the results…' : 'Loading the results…'}
        </p>
      )}
      {state.status === 'failed' && <Failure error={state.error} />}
      {loading && !answer && <Placeholder />}
      {answer && (
        <div className={loading ? 'preview-stale' : undefined}>
          <Summary answer={answer} />
          <Banners fusion={answer.fusion} />
          <ol className="preview-cards" aria-label={`${title} products`}>
            {(answer.response?.docs ?? []).map((doc, i) => (
              <Card
                // biome-ignore lint/suspicious/noArrayIndexKey: documents need not have an id field
                key={`${idOf(doc) ?? ''}-${i}`}
                doc={doc}
                position={i + 1}
                fusion={answer.fusion}
                display={display}
                actions={actions}
                livePosition={
                  livePositions === undefined ? undefined : (livePositions.get(idOf(doc) ?? '') ?? 0)
                }
              />
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}

/** Grey cards where the results will be: loading never looks like "nothing found". */
function Placeholder() {
  return (
    <ol className="preview-cards" aria-hidden="true">
      {[1, 2, 3].map((n) => (
        <li key={n} className="product-card placeholder">
          <span className="product-position" />
          <span className="placeholder-line" />
        </li>
      ))}
    </ol>
  );
}

function Summary({ answer }: { answer: Answer }) {
  const { fusion } = answer;
  const found = answer.response?.numFound ?? 0;
  const shown = answer.response?.docs.length ?? 0;
  const redirectBy = redirectRule(fusion);
  return (
    <div className="preview-summary">
      <p>
        {found === 0
          ? 'No product found.'
          : `${found.toLocaleString()} ${found === 1 ? 'product' : 'products'} found, the first ${shown} shown.`}
        {fusion.rewrittenQuery !== queryText(fusion.query) && (
          <>
            {' '}
            Searched as <strong>{fusion.rewrittenQuery || 'every product'}</strong>.
          </>
        )}
      </p>
      {fusion.redirect && (
        <p className="preview-redirect">
          Shoppers are sent to{' '}
          <a href={fusion.redirect} rel="noreferrer" target="_blank">
            {fusion.redirect}
          </a>
          {redirectBy && <> by “{redirectBy}”</>} instead of these results.
        </p>
      )}
      <p className="preview-rules">
        {fusion.rules.length === 0
          ? 'No rule applies to this query.'
          : `Rules that apply: ${fusion.rules.map((r) => `“${r.name}”`).join(', ')}.`}
      </p>
      {fusion.facets && fusion.facets.length > 0 && (
        <p className="preview-facets">Facets in this order: {fusion.facets.join(', ')}.</p>
      )}
      <PageData values={fusion.responseValues} />
    </div>
  );
}

/** The data the rules send with the results for the shop's page, as a short list of names and values. */
function PageData({ values }: { values: Fusion['responseValues'] }) {
  const pairs = Object.entries(values ?? {});
  if (pairs.length === 0) return null;
  return (
    <div className="preview-data">
      <p>Data sent to the page:</p>
      <dl>
        {pairs.map(([key, value]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>{valueText(value)}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** The query as the rules compare it, to tell whether the rewrites changed it. */
function queryText(query: string): string {
  return query.trim().toLowerCase().replace(/\s+/g, ' ');
}

function Banners({ fusion }: { fusion: Fusion }) {
  const banners = bannersOf(fusion);
  if (banners.length === 0) return null;
  return (
    <div className="preview-banners">
      {banners.map((banner, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: two rules may show the same banner
        <Banner key={i} banner={banner} />
      ))}
    </div>
  );
}

/** One banner drawn; when its picture cannot be loaded, a frame saying so, with the address. */
function Banner({ banner }: { banner: ReturnType<typeof bannersOf>[number] }) {
  const [failed, setFailed] = useState(false);
  const named = banner.rule ? `“${banner.rule}”` : 'Banner';
  return (
    <figure className="preview-banner">
      {failed ? (
        <div className="preview-banner-missing">
          The banner's picture could not be loaded from <span className="url">{banner.url}</span>
        </div>
      ) : (
        <img
          src={banner.url}
          alt={`Banner${banner.rule ? ` “${banner.rule}”` : ''} (${banner.zone} zone)`}
          loading="lazy"
          onError={() => setFailed(true)}
        />
      )}
      <figcaption>
        {named}, {banner.zone} zone
      </figcaption>
    </figure>
  );
}

interface CardProps {
  doc: Doc;
  position: number;
  fusion: Fusion;
  display: Display | undefined;
  actions: CardActions | undefined;
  /** In the staging column: the product's place in the live one (0: not among the live results shown). */
  livePosition: number | undefined;
}

function Card({ doc, position, fusion, display, actions, livePosition }: CardProps) {
  const title = titleOf(doc, display);
  const image = imageOf(doc, display);
  const price = priceOf(doc, display);
  const id = idOf(doc);
  const marks = marksOf(doc, fusion);
  return (
    <li className={image ? 'product-card with-image' : 'product-card'}>
      <span className="product-position" aria-hidden="true">
        {position}
      </span>
      {/* The title says what it shows: the picture adds nothing to read. */}
      {image && <img className="product-image" src={image} alt="" loading="lazy" />}
      <div className="product-body">
        <p className="product-title">{title}</p>
        <p className="product-facts">
          {price !== undefined && <span className="product-price">{price}</span>}
          {id !== undefined && id !== title && <span className="product-id">{id}</span>}
          {livePosition !== undefined && livePosition !== position && (
            <span className="product-moved">
              {livePosition === 0 ? 'Not in the live results shown' : `${ordinal(livePosition)} in live`}
            </span>
          )}
        </p>
        {marks.length > 0 && (
          <ul className="product-marks">
            {marks.map((mark) => (
              <li key={mark.text} className={`mark mark-${mark.kind}`}>
                {mark.text}
              </li>
            ))}
          </ul>
        )}
        {actions && id !== undefined && (
          <div className="product-actions">
            {(
              [
                ['pin', 'Pin here', 'Put this product first for this query'],
                ['block', 'Block', 'Hide this product for this query'],
                ['boost', 'Boost', 'Move this product up for this query'],
              ] as const
            ).map(([action, label, what]) => (
              <button
                key={action}
                type="button"
                aria-label={`${label}: ${title}`}
                title={actions.unavailable ?? `${what}, in a draft rule`}
                disabled={actions.busy || actions.unavailable !== undefined}
                onClick={() => actions.run(action, doc)}
              >
                {label}
              </button>
            ))}
          </div>
        )}
      </div>
    </li>
  );
}
