// The security headers of every answer, as helmet writes them. helmet decides the headers
// and their values; they are asked of it once, at load, and kept as plain objects, because
// the hook that sets them runs on every request, typeahead keystrokes included, and
// helmet's own middleware (or @fastify/helmet, which builds it anew per request) would cost
// several microseconds each time.
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** The headers helmet sets with `options`, names in lower case. */
function headersSetBy(options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string | number) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader() {},
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, () => {});
  return Object.freeze(headers);
}

// What every answer carries: no sniffing, no framing, no referrer.
const SHARED = {
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  xContentTypeOptions: true,
  strictTransportSecurity: false,
} satisfies HelmetOptions;

// Headers that only mean something to a document a browser renders; a JSON answer would
// carry their bytes on every typeahead keystroke for nothing.
const DOCUMENT_ONLY = {
  crossOriginOpenerPolicy: false,
  crossOriginResourcePolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
} satisfies HelmetOptions;

/** Data (JSON, text) and errors: nothing may be loaded or framed from them. */
export const DATA_HEADERS = headersSetBy({
  ...SHARED,
  ...DOCUMENT_ONLY,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
});

/**
 * The landing page: a document of HTML with no script or image; its one inline style sheet
 * is allowed by `styleSource` (its hash), and nothing else may load.
 */
export function landingPageHeaders(styleSource: string): Readonly<Record<string, string>> {
  return headersSetBy({
    ...SHARED,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], styleSrc: [styleSource], frameAncestors: ["'none'"] },
    },
  });
}

/**
 * The browsable API docs (Swagger UI): its scripts, styles and images come from the service
 * itself. helmet's default policy, except that it is never framed and does not upgrade to
 * HTTPS (the service is often reached over plain HTTP on a private network).
 */
export const DOCS_HEADERS = headersSetBy({
  ...SHARED,
  contentSecurityPolicy: {
    directives: { frameAncestors: ["'none'"], upgradeInsecureRequests: null },
  },
});

/**
 * The console: the documents' policy, and images from anywhere, since its query preview draws
 * the products' images and the banners that fired, which live on the shop's own servers (http
 * or https). Images cannot run anything; scripts, styles and connections stay the service's own.
 */
export const CONSOLE_HEADERS = headersSetBy({
  ...SHARED,
  contentSecurityPolicy: {
    directives: {
      frameAncestors: ["'none'"],
      upgradeInsecureRequests: null,
      imgSrc: ["'self'", 'data:', 'https:', 'http:'],
    },
  },
});

/** Strict-Transport-Security with helmet's defaults (one year, subdomains), for answers over HTTPS. */
export const HSTS = headersSetBy({
  contentSecurityPolicy: false,
  crossOriginOpenerPolicy: false,
  crossOriginResourcePolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  xContentTypeOptions: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
})['strict-transport-security']!;
