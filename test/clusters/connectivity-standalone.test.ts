import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { checkConnectivity, listNodes } from '../../src/clusters/connectivity.js';
import { standaloneSettings } from '../helpers/cluster-settings.js';
import { type FakeSolr, type FakeSolrOptions, startFakeSolr } from '../helpers/fake-solr.js';
import { freePort } from '../helpers/zookeeper.js';

const PASSWORD = 'Sup3r-s3cret-pa55';

async function solrNode(t: TestContext, options?: FakeSolrOptions): Promise<FakeSolr> {
  const solr = await startFakeSolr(options);
  t.after(() => solr.close());
  return solr;
}

function messageOf(result: { ok: boolean; message?: string }): string {
  return result.message ?? '';
}

describe('the connectivity check of a standalone Solr node', () => {
  it('answers cluster-unreachable saying nothing listens when the port is closed', async () => {
    const port = await freePort();

    const result = await checkConnectivity(standaloneSettings(`http://127.0.0.1:${port}/solr`));

    assert.equal(result.ok || result.code, 'cluster-unreachable');
    assert.match(messageOf(result), new RegExp(`nothing is listening at 127\\.0\\.0\\.1:${port}`));
  });

  it('answers cluster-unreachable when the server is not Solr', async (t) => {
    const solr = await solrNode(t, { behaviour: 'not-solr' });

    const result = await checkConnectivity(standaloneSettings(solr.baseUrl));

    assert.equal(result.ok || result.code, 'cluster-unreachable');
    assert.match(messageOf(result), /is not Solr's system info/);
  });

  it('gives up on a node that never answers within zkConnectTimeout', async (t) => {
    const solr = await solrNode(t, { behaviour: 'silent' });
    const started = performance.now();

    const result = await checkConnectivity(standaloneSettings(solr.baseUrl, { zkConnectTimeout: 300 }));

    const elapsed = performance.now() - started;
    // A timer may fire up to a millisecond before performance.now() says its time is up.
    assert.ok(elapsed >= 298 && elapsed <= 1300, `returned after ${elapsed.toFixed(1)} ms`);
    assert.match(messageOf(result), /no answer within the check's 300 ms \(zkConnectTimeout\)/);
  });

  it('never puts the password into a result, whatever fails', async (t) => {
    const guarded = await solrNode(t, { credentials: { username: 'searchdeck', password: 'another' } });
    const port = await freePort();
    const authConfig = { authType: 'BASIC' as const, username: 'searchdeck', password: PASSWORD };
    const urls = [
      guarded.baseUrl,
      `http://127.0.0.1:${port}/solr`,
      `http://searchdeck:${PASSWORD}@127.0.0.1:${port}/solr`,
      `http://searchdeck:${PASSWORD}@127.0.0.1:${guarded.port}/solr`,
      `not a url ${PASSWORD}@x`,
    ];

    for (const url of urls) {
      const result = await checkConnectivity(standaloneSettings(url, { authConfig, zkConnectTimeout: 500 }));
      const nodes = await listNodes(standaloneSettings(url, { authConfig, zkConnectTimeout: 500 }));
      assert.equal(result.ok, false, url);
      assert.ok(!JSON.stringify(result).includes(PASSWORD), JSON.stringify(result));
      assert.ok(!JSON.stringify(nodes).includes(PASSWORD), JSON.stringify(nodes));
    }
  });
});

describe('listing the node of a standalone Solr', () => {
  it('reports the node down when nothing listens', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}/solr`;

    assert.deepEqual(await listNodes(standaloneSettings(baseUrl)), {
      ok: true,
      nodes: [{ name: `127.0.0.1:${port}_solr`, baseUrl, state: 'down' }],
    });
  });

  it('reports the state unknown for Kerberos, which it cannot check yet', async () => {
    const settings = standaloneSettings('http://solr1:8983/solr', {
      authConfig: { authType: 'KERBEROS', principal: 'searchdeck@EXAMPLE.COM', keyTab: 'a2V5dGFi' },
    });

    assert.deepEqual(await listNodes(settings), {
      ok: true,
      nodes: [{ name: 'solr1:8983_solr', baseUrl: 'http://solr1:8983/solr', state: 'unknown' }],
    });
  });
});
