// A receiver of signed webhooks written from the Standard Webhooks specification
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md),
// not from searchdeck's code: what a sync target's owner would write.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Why a message is refused, or undefined when it verifies. */
export function verifyWebhook(
  secret: string,
  headers: IncomingHttpHeaders,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): string | undefined {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') {
    return 'missing headers';
  }
  // The spec's tolerance against replays: five minutes either way.
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > 5 * 60) return 'stale timestamp';
  // "whsec_" then the base64 of the key; the signed content is id.timestamp.body.
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  // Space-delimited list of "<version>,<base64 signature>"; any v1 that matches will do.
  for (const entry of signatures.split(' ')) {
    const [version, encoded] = entry.split(',');
    if (version !== 'v1' || encoded === undefined) continue;
    const given = Buffer.from(encoded, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return undefined;
  }
  return 'no matching signature';
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  at: number;
}

/**
 * A webhook receiver answering with the given statuses in turn (the last one repeats); with
 * `location` set, each answer carries it (a redirect).
 */
export async function receiver(t: { after(fn: () => unknown): void }, statuses: number[] = [200]) {
  const received: Received[] = [];
  const state: { location?: string } = {};
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body, json: JSON.parse(body), at: Date.now() });
      response.statusCode = statuses[Math.min(received.length - 1, statuses.length - 1)]!;
      if (state.location) response.setHeader('location', state.location);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return Object.assign(state, { url, received });
}
