import { createHash } from 'node:crypto';
import { Type } from 'typebox';
import type { TypedApp } from './area.js';
import { landingPageHeaders } from './security-headers.js';

/** Where a newcomer goes from `/`: the same places in the page and in the JSON index. */
const LINKS = {
  console: '/console',
  docs: '/docs',
  openapi: '/api/openapi.json',
  health: '/health',
  ready: '/ready',
} as const;

const IndexSchema = Type.Object(
  {
    service: Type.Literal('searchdeck'),
    links: Type.Object({
      console: Type.String({ description: 'the console, in a browser' }),
      docs: Type.String({ description: 'the browsable API documentation' }),
      openapi: Type.String({ description: 'the OpenAPI document of every interface' }),
      health: Type.String({ description: 'whether the process answers' }),
      ready: Type.String({ description: 'whether the database answers and is migrated' }),
    }),
    interfaces: Type.Object({
      admin: Type.String({ description: 'Administrative API, HTTP Basic' }),
      typeahead: Type.String({ description: 'Typeahead API, embed token' }),
      rules: Type.String({ description: 'Rules API, OAuth2 bearer token' }),
    }),
  },
  { description: 'Where to go from here' },
);

const INDEX = {
  service: 'searchdeck',
  links: LINKS,
  interfaces: { admin: '/api', typeahead: '/typeahead', rules: '/em-rules' },
} as const;

// The page's look, the console's (its colours, fonts and header): inline, so the page stays one
// document; its policy allows this one style sheet by its hash, and nothing else to load.
const STYLE = `
:root { font-family: system-ui, sans-serif; color: #1b1f24; background: #f6f7f9; line-height: 1.5; }
body { margin: 0; }
header { background: #1f2937; color: #fff; padding: 0.8rem 1rem; font-size: 1.1rem; }
header strong { font-weight: 700; }
main { max-width: 40rem; margin: 0 auto; padding: 1.5rem 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 0.5rem; }
a { color: #0b57d0; }
.card { background: #fff; border: 1px solid #e5e7eb; border-radius: 6px; padding: 0.5rem 1rem; margin: 1rem 0; }
.card ul { list-style: none; margin: 0; padding: 0; }
.card li { padding: 0.6rem 0; border-bottom: 1px solid #e5e7eb; }
.card li:last-child { border-bottom: 0; }
.card a { font-weight: 600; }
.console { display: inline-block; background: #0b57d0; color: #fff; text-decoration: none; padding: 0.5rem 1rem; border-radius: 4px; font-weight: 600; }
.console:focus-visible, a:focus-visible { outline: 2px solid #0b57d0; outline-offset: 2px; }
code { font-family: ui-monospace, monospace; font-size: 0.9em; }
p.hint { color: #4b5563; font-size: 0.9rem; }
`;

/** The Content-Security-Policy source that allows the page's one style sheet and no other. */
export const LANDING_STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

// HTML without script or image; its one style sheet is inline.
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>searchdeck</title>
<style>${STYLE}</style>
</head>
<body>
<header><strong>searchdeck</strong></header>
<main>
<h1>Welcome to searchdeck</h1>
<p>The experience layer of a search platform: links, search clusters, typeahead and merchandising rules.</p>
<p><a class="console" href="${LINKS.console}">Open the console</a></p>
<div class="card">
<ul>
<li><a href="${LINKS.docs}">API documentation</a>: try the Administrative, Typeahead and Rules APIs</li>
<li><a href="${LINKS.openapi}">OpenAPI document</a></li>
<li><a href="${LINKS.health}">Health</a> and <a href="${LINKS.ready}">readiness</a></li>
</ul>
</div>
<p class="hint">Scripts may ask this address for <code>application/json</code> to get these links as JSON.</p>
</main>
</body>
</html>
`;

/**
 * Whether an Accept header ranks JSON above HTML. Each side takes the quality of the most
 * specific range that matches it (`application/json`, then `application/*`, then `*\/*`; for
 * HTML `text/html`, `text/*`, `*\/*`); the higher quality wins, and at equal quality the side
 * named more specifically (`application/json, *\/*` is JSON). A full tie (no Accept, `*\/*`) is HTML.
 */
export function prefersJson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  // Per side, the quality given by each specificity: [exact type, type/*, */*].
  const json = [-1, -1, -1];
  const html = [-1, -1, -1];
  for (const range of accept.toLowerCase().split(',')) {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim());
    const q = parameters.find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(value)) continue;
    const note = (side: number[], at: number) => {
      side[at] = Math.max(side[at]!, value);
    };
    if (type === 'application/json') note(json, 0);
    else if (type === 'application/*') note(json, 1);
    else if (type === 'text/html') note(html, 0);
    else if (type === 'text/*') note(html, 1);
    else if (type === '*/*') {
      note(json, 2);
      note(html, 2);
    }
  }
  const score = (side: number[]) => {
    const at = side.findIndex((q) => q >= 0);
    return at < 0 ? { q: 0, specificity: -1 } : { q: side[at]!, specificity: 2 - at };
  };
  const [j, h] = [score(json), score(html)];
  return j.q > h.q || (j.q === h.q && j.q > 0 && j.specificity > h.specificity);
}

const PAGE_HEADERS = landingPageHeaders(LANDING_STYLE_SOURCE);

/** `GET /`: a small page of links for a browser, the same links as JSON for `Accept: application/json`. */
export function landingPage(app: TypedApp): void {
  app.get(
    '/',
    {
      schema: {
        tags: ['operations'],
        summary: 'Where to start: a page of links for a browser, or them as JSON',
        operationId: 'getIndex',
        security: [],
        response: {
          200: {
            description: 'The links (HTML unless JSON is preferred)',
            content: {
              'application/json': { schema: IndexSchema },
              'text/html': { schema: Type.String() },
            },
          },
        },
      },
    },
    async (request, reply) => {
      reply.header('vary', 'Accept');
      if (prefersJson(request.headers.accept))
        return reply.type('application/json; charset=utf-8').send(INDEX);
      return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(PAGE);
    },
  );
}
