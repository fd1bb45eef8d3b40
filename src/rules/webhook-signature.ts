// The Standard Webhooks signature scheme (https://www.standardwebhooks.com): the target
// checks `webhook-signature` against an HMAC-SHA256, under the secret's bytes, of
// `<webhook-id>.<webhook-timestamp>.<body>`.
import { createHmac } from 'node:crypto';

/** The key bytes of a `whsec_<base64>` secret. */
export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** `v1,<base64 signature>` of one message. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The headers of one delivery attempt. Without a secret (a target set before secrets
 * existed, not yet rotated) the message goes unsigned: id and timestamp only.
 */
export function webhookHeaders(
  secret: string | undefined,
  id: string,
  at: Date,
  body: string,
): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    ...(secret === undefined ? {} : { 'webhook-signature': signature(secret, id, timestamp, body) }),
  };
}
