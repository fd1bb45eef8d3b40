import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ADMIN_PASSWORD, build, contractTest, engines, skipReason } from '../helpers/app.js';

const basic = (password: string) => `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;

/** An admin request as it arrives from `peer`, with X-Forwarded-For when given. */
function fromPeer(app: FastifyInstance, peer: string, password: string, forwardedFor?: string) {
  return app.inject({
    url: '/api/links',
    remoteAddress: peer,
    headers: { authorization: basic(password), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
  });
}

describe('SEARCHDECK_TRUST_PROXY', () => {
  test('is off by default and takes a list of addresses, ranges and named ranges', () => {
    assert.equal(loadConfig({}).trustProxy, undefined);
    const list = '10.0.0.1, 192.168.0.0/16,fd00::/8, ::1, loopback, uniquelocal';
    assert.equal(loadConfig({ SEARCHDECK_TRUST_PROXY: list }).trustProxy, list);
    assert.equal(loadConfig({}, ['--trust-proxy', 'true']).trustProxy, 'true');
  });

  for (const value of [
    '1',
    '2',
    '10.0.0.0/33',
    '::1/129',
    'proxy.internal',
    '10.0.0.1,,10.0.0.2',
    '10.0.0/8',
    'yes',
  ]) {
    test(`refuses ${value} with a message naming the variable`, () => {
      assert.throws(
        () => loadConfig({ SEARCHDECK_TRUST_PROXY: value }),
        (error: Error) =>
          error instanceof ConfigError && error.message.startsWith('SEARCHDECK_TRUST_PROXY (--trust-proxy)'),
      );
    });
  }
});

for (const engine of engines) {
  describe(`client addresses behind a proxy on ${engine}`, { skip: await skipReason(engine) }, () => {
    const contract = contractTest(engine);
    contract('takes the client from X-Forwarded-For when a trusted proxy sends it', async (t) => {
      const { app } = await build(t, engine, { env: { SEARCHDECK_TRUST_PROXY: '10.0.0.0/8' } });
      // The other client has signed in before, so the account's delay for unknown addresses
      // (test/users/account-limit.test.ts) does not hold it: this test is about addresses.
      assert.equal((await fromPeer(app, '10.0.0.5', ADMIN_PASSWORD, '203.0.113.8')).statusCode, 200);
      for (let i = 0; i < 10; i++) {
        assert.equal((await fromPeer(app, '10.0.0.5', `wrong${i}`, '203.0.113.7')).statusCode, 401);
      }
      // The same client through another node of the proxy tier is still blocked …
      const blocked = await fromPeer(app, '10.1.2.3', ADMIN_PASSWORD, '203.0.113.7');
      assert.equal(blocked.statusCode, 429);
      assert.equal(blocked.json().code, 'too-many-requests');
      // … while other clients behind the same proxy are not locked out with it.
      assert.equal((await fromPeer(app, '10.0.0.5', ADMIN_PASSWORD, '203.0.113.8')).statusCode, 200);
      // A client-written entry left of the proxy's own does not move the client either.
      assert.equal(
        (await fromPeer(app, '10.0.0.5', ADMIN_PASSWORD, '198.51.100.1, 203.0.113.7')).statusCode,
        429,
      );
    });

    contract('ignores X-Forwarded-For from a peer that is not a trusted proxy', async (t) => {
      const { app } = await build(t, engine, { env: { SEARCHDECK_TRUST_PROXY: '10.0.0.0/8' } });
      // The address named has signed in before (the account's delay for unknown addresses
      // is another test's subject).
      assert.equal((await fromPeer(app, '10.0.0.5', ADMIN_PASSWORD, '203.0.113.3')).statusCode, 200);
      // A spoofed header, different on every attempt, does not let the client escape its limit.
      for (let i = 0; i < 10; i++) {
        const spoofed = await fromPeer(app, '198.51.100.9', `wrong${i}`, `203.0.113.${i}`);
        assert.equal(spoofed.statusCode, 401);
      }
      assert.equal((await fromPeer(app, '198.51.100.9', ADMIN_PASSWORD, '203.0.113.200')).statusCode, 429);
      assert.equal((await fromPeer(app, '198.51.100.9', ADMIN_PASSWORD)).statusCode, 429);
      // Nor can it lock out the address it names.
      assert.equal((await fromPeer(app, '10.0.0.5', ADMIN_PASSWORD, '203.0.113.3')).statusCode, 200);
    });

    contract('ignores X-Forwarded-For from everyone when the setting is off', async (t) => {
      const { app } = await build(t, engine);
      for (let i = 0; i < 10; i++) {
        assert.equal((await fromPeer(app, '10.0.0.5', `wrong${i}`, `203.0.113.${i}`)).statusCode, 401);
      }
      assert.equal((await fromPeer(app, '10.0.0.5', ADMIN_PASSWORD, '203.0.113.99')).statusCode, 429);
    });
  });
}

test('logs the client a trusted proxy names, and the peer otherwise', async (t) => {
  const lines: string[] = [];
  const stream = { write: (line: string) => lines.push(line) };
  const { app } = await build(t, 'sqlite', {
    env: { SEARCHDECK_TRUST_PROXY: '10.0.0.1' },
    logger: { level: 'info', stream },
  });
  const forwarded = { 'x-forwarded-for': '203.0.113.7' };
  await app.inject({
    url: '/health',
    remoteAddress: '10.0.0.1',
    headers: { ...forwarded, 'x-request-id': 'a' },
  });
  await app.inject({
    url: '/health',
    remoteAddress: '10.0.0.2',
    headers: { ...forwarded, 'x-request-id': 'b' },
  });
  const clientOf = (id: string) =>
    lines.map((line) => JSON.parse(line)).find((line) => line.reqId === id && line.status)?.client;
  assert.equal(clientOf('a'), '203.0.113.7');
  assert.equal(clientOf('b'), '10.0.0.2');
});
