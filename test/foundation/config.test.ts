import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

test('uses the documented defaults when nothing is set', () => {
  const config = loadConfig({});
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8764);
  assert.equal(config.dataDir, './data');
  assert.equal(config.databaseUrl, undefined);
  assert.equal(config.logLevel, 'info');
  assert.equal(config.statementTimeoutMs, 5000);
  assert.equal(config.pgParallelWorkers, 0);
  assert.equal(config.requestTimeoutMs, 30_000);
  assert.equal(config.maxConnectionsPerAddress, 256);
  assert.equal(config.shutdownGraceMs, 10_000);
  assert.ok(Object.isFrozen(config));
});

test('lets a serve flag win over its environment variable', () => {
  const config = loadConfig({ SEARCHDECK_PORT: '9000' }, ['--port', '9100', '--data-dir', '/tmp/x']);
  assert.equal(config.port, 9100);
  assert.equal(config.dataDir, '/tmp/x');
});

for (const [variable, value] of [
  ['SEARCHDECK_PORT', 'eighty'],
  ['SEARCHDECK_PORT', '70000'],
  ['SEARCHDECK_PORT', '80.5'],
  ['SEARCHDECK_DATABASE_URL', 'mysql://localhost/db'],
  ['SEARCHDECK_LOG_LEVEL', 'loud'],
  ['SEARCHDECK_SECRET_KEY', 'too-short'],
  ['SEARCHDECK_ADMIN_PASSWORD', 'short'],
  ['SEARCHDECK_STATEMENT_TIMEOUT_MS', '0'],
  ['SEARCHDECK_PG_PARALLEL_WORKERS', '-1'],
  ['SEARCHDECK_PG_PARALLEL_WORKERS', '65'],
  ['SEARCHDECK_STATEMENT_TIMEOUT_MS', '5s'],
  ['SEARCHDECK_REQUEST_TIMEOUT_MS', '0'],
  ['SEARCHDECK_MAX_CONNECTIONS_PER_ADDRESS', '-1'],
  ['SEARCHDECK_SHUTDOWN_GRACE_MS', '1000'],
] as const) {
  test(`rejects ${variable}=${value} with a message naming the variable`, () => {
    assert.throws(
      () => loadConfig({ [variable]: value }),
      (error: Error) => error instanceof ConfigError && error.message.startsWith(variable),
    );
  });
}

test('requires the external issuer and its key set URL together', () => {
  assert.throws(
    () => loadConfig({ SEARCHDECK_OIDC_ISSUER: 'https://login.example.test/' }),
    (error: Error) => error instanceof ConfigError && error.message.includes('SEARCHDECK_OIDC_JWKS_URL'),
  );
  const config = loadConfig({
    SEARCHDECK_OIDC_ISSUER: 'https://login.example.test/',
    SEARCHDECK_OIDC_JWKS_URL: 'https://login.example.test/jwks',
  });
  assert.equal(config.oidcStudioClaim, 'studio_id');
});

test('rejects an unknown flag', () => {
  assert.throws(() => loadConfig({}, ['--colour', 'blue']), ConfigError);
});
