// A stop while queries wait on a Solr node that never answers: the real process, and a real
// HTTP server playing the node (a real Solr cannot be made to hang on demand). The grace
// period is set short (2 s), so the test costs the process start and those 2 s.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { startService } from '../helpers/process.js';
import { startSelectSolr } from '../query/select-solr.js';

const PASSWORD = 'shutdown-test-password';
const ADMIN = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
const GRACE_MS = 2000;

const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-stop-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

async function post(url: string, body: object): Promise<Record<string, unknown>> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { authorization: ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await answer.json()) as Record<string, unknown>;
  assert.equal(answer.status, 200, JSON.stringify(json));
  return json;
}

test('on SIGTERM, queries still waiting on Solr when the grace runs out are answered 503 and the process exits 0 within it', async (t) => {
  const solr = await startSelectSolr();
  t.after(() => solr.close());
  const service = await startService({
    SEARCHDECK_DATA_DIR: dataDir,
    SEARCHDECK_ADMIN_PASSWORD: PASSWORD,
    SEARCHDECK_SHUTDOWN_GRACE_MS: String(GRACE_MS),
  });
  t.after(() => service.stop('SIGKILL'));
  const api = `${service.url}/api/apps/shop`;
  await post(`${api}/searchCluster`, { id: 'one', cloud: false, connectString: solr.baseUrl });
  // Solr's own timeout is far beyond the grace: only the stop can end these queries.
  await post(`${api}/query-profiles`, {
    id: 'web',
    searchCluster: 'one',
    collection: 'products',
    timeoutMs: 60_000,
  });
  const { key } = await post(`${api}/query-profiles/web/keys`, {});
  solr.mode = 'silent';

  // One query through the lane answered before routing (a profile key), one through the route.
  const queries = [`Bearer ${key}`, ADMIN].map((authorization) =>
    fetch(`${api}/query/web?q=kettle`, { headers: { authorization } }),
  );
  await eventually(() => assert.equal(solr.received.length, 2), { within: 10_000 });
  const exited = service.stop('SIGTERM');
  const signalled = performance.now();

  for (const answer of await Promise.all(queries)) {
    assert.equal(answer.status, 503);
    assert.equal(answer.headers.get('connection'), 'close');
    assert.ok(answer.headers.get('x-request-id'));
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    const body = (await answer.json()) as Record<string, unknown>;
    assert.equal(body.code, 'not-ready');
    assert.equal(body.status, 503);
    assert.equal(body.path, '/api/apps/shop/query/web');
    assert.match(String(body.message), /shutting down/);
  }
  assert.equal(await exited, 0, service.output());
  const tookMs = performance.now() - signalled;
  assert.ok(tookMs < GRACE_MS + 500, `the process exited ${Math.round(tookMs)} ms after the signal`);
  assert.ok(tookMs > GRACE_MS / 2 - 100, 'the queries were given most of the grace period first');
  const lines = service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
  assert.deepEqual(
    lines.filter((line) => line.level >= 50),
    [],
    'nothing is logged as an error',
  );
  assert.ok(lines.some((line) => line.level === 40 && /grace period over/.test(line.msg)));
});
