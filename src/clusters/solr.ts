import http from 'node:http';
import https from 'node:https';

export interface BasicCredentials {
  username: string;
  password: string;
}

export interface SolrSystemInfo {
  solrVersion: string;
  /** `solrcloud` or `std`, as the node reports it. */
  mode: string | undefined;
  /** The whole answer, as the node gave it (`GET /searchCluster/{id}/systemInfo` shows it). */
  document: Record<string, unknown>;
}

export type SolrProbeFailure =
  | 'nothing-listening'
  | 'unknown-host'
  | 'timeout'
  | 'credentials-rejected'
  | 'forbidden'
  | 'not-solr'
  | 'http-error'
  | 'connection-failed';

export type SystemInfoResult =
  | { ok: true; info: SolrSystemInfo }
  | { ok: false; failure: SolrProbeFailure; status?: number; message: string };

// A system-info answer is some KiB (15 from Solr 9.10.1, most of it the class path); far bigger is not one.
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Asks the Solr node at `baseUrl` (`http://host:8983/solr`) for `/admin/info/system`, within
 * `timeoutMs`. Messages never contain the password; credentials in the URL itself are ignored.
 */
export async function getSystemInfo(
  baseUrl: string,
  auth: BasicCredentials | undefined,
  timeoutMs: number,
): Promise<SystemInfoResult> {
  const result = await getSolrJson(
    baseUrl,
    'admin/info/system?wt=json',
    auth,
    timeoutMs,
    parseSystemInfo,
    "Solr's system info",
  );
  return result.ok ? { ok: true, info: result.value } : result;
}

/** The names of the cores of the standalone Solr node at `baseUrl` (CoreAdmin STATUS), sorted. */
export function getCoreNames(
  baseUrl: string,
  auth: BasicCredentials | undefined,
  timeoutMs: number,
): Promise<SolrJsonResult<string[]>> {
  return getSolrJson(
    baseUrl,
    'admin/cores?action=STATUS&indexInfo=false&wt=json',
    auth,
    timeoutMs,
    (json) => (isRecord(json) && isRecord(json.status) ? Object.keys(json.status).sort() : undefined),
    "Solr's core status",
  );
}

export type SolrJsonResult<T> =
  | { ok: true; value: T }
  | { ok: false; failure: SolrProbeFailure; status?: number; message: string };

/**
 * GETs `path` (relative to `baseUrl`) from a Solr node within `timeoutMs` and reads the JSON
 * answer with `parse`, which answers undefined for JSON that is not `what`.
 */
function getSolrJson<T>(
  baseUrl: string,
  path: string,
  auth: BasicCredentials | undefined,
  timeoutMs: number,
  parse: (json: unknown) => T | undefined,
  what: string,
): Promise<SolrJsonResult<T>> {
  let url: URL;
  try {
    url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  } catch {
    return Promise.resolve({ ok: false, failure: 'connection-failed', message: 'the base URL is not a URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.resolve({
      ok: false,
      failure: 'connection-failed',
      message: 'the base URL is not http(s)',
    });
  }
  return new Promise((resolve) => {
    const headers: Record<string, string> = { accept: 'application/json', connection: 'close' };
    if (auth) {
      headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    }
    const request = (url.protocol === 'https:' ? https : http).request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers,
      agent: false,
    });
    let settled = false;
    const finish = (result: SolrJsonResult<T>) => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const timer = setTimeout(() => {
      finish({ ok: false, failure: 'timeout', message: `no answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish(connectionFailure(error, url)));
    request.on('response', (response) => {
      readBody(response)
        .then((body) => {
          request.destroy();
          finish(interpret(response.statusCode ?? 0, response.headers['content-type'], body, parse, what));
        })
        .catch((error: NodeJS.ErrnoException) => finish(connectionFailure(error, url)));
    });
    request.end();
  });
}

function readBody(response: http.IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.destroy();
        resolve(undefined);
      } else {
        chunks.push(chunk);
      }
    });
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', reject);
  });
}

function interpret<T>(
  status: number,
  contentType: string | undefined,
  body: Buffer | undefined,
  parse: (json: unknown) => T | undefined,
  what: string,
): SolrJsonResult<T> {
  if (status === 401) {
    return {
      ok: false,
      failure: 'credentials-rejected',
      status,
      message: 'Solr rejected the credentials (HTTP 401)',
    };
  }
  // Solr answers 403 to a user it authenticated whose roles do not permit the request.
  if (status === 403) {
    return { ok: false, failure: 'forbidden', status, message: 'Solr refused the request (HTTP 403)' };
  }
  if (status === 404) {
    return { ok: false, failure: 'not-solr', status, message: 'HTTP 404: no Solr answers at this path' };
  }
  if (status < 200 || status >= 300) {
    return { ok: false, failure: 'http-error', status, message: `HTTP ${status}` };
  }
  const value = body && parse(jsonOf(body));
  if (value === undefined) {
    const type = contentType?.split(';')[0] ?? 'no content type';
    return {
      ok: false,
      failure: 'not-solr',
      status,
      message: `the answer (HTTP ${status}, ${type}) is not ${what}`,
    };
  }
  return { ok: true, value };
}

function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function parseSystemInfo(json: unknown): SolrSystemInfo | undefined {
  if (!isRecord(json) || !isRecord(json.responseHeader) || !isRecord(json.lucene)) return undefined;
  const version = json.lucene['solr-spec-version'];
  if (typeof version !== 'string') return undefined;
  return {
    solrVersion: version,
    mode: typeof json.mode === 'string' ? json.mode : undefined,
    document: json,
  };
}

function connectionFailure(
  error: NodeJS.ErrnoException,
  url: URL,
): Extract<SolrJsonResult<never>, { ok: false }> {
  const where = url.host;
  switch (error.code) {
    case 'ECONNREFUSED':
      return { ok: false, failure: 'nothing-listening', message: `nothing is listening at ${where}` };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { ok: false, failure: 'unknown-host', message: `the host ${url.hostname} cannot be resolved` };
    default:
      if (/SSL|TLS|CERT|EPROTO/.test(error.code ?? '')) {
        return {
          ok: false,
          failure: 'connection-failed',
          message: `TLS with ${where} failed (${error.code}): is the URL scheme right and the certificate trusted?`,
        };
      }
      return {
        ok: false,
        failure: 'connection-failed',
        message: `the connection to ${where} failed (${error.code ?? error.message})`,
      };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
