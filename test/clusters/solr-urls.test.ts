import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  baseUrlForNodeName,
  nodeNameForBaseUrl,
  redactUrl,
  urlSchemeFrom,
} from '../../src/clusters/solr-urls.js';

describe('Solr node names and URLs', () => {
  it('derives a base URL from a live-node name the way Solr does', () => {
    assert.equal(baseUrlForNodeName('10.0.0.1:8983_solr', 'http'), 'http://10.0.0.1:8983/solr');
    assert.equal(baseUrlForNodeName('solr1:8983_', 'https'), 'https://solr1:8983');
    assert.equal(baseUrlForNodeName('solr1:8983_solr%2Fcustom', 'http'), 'http://solr1:8983/solr/custom');
  });

  it('names a node from its base URL so that the name leads back to the URL', () => {
    const segment = fc.stringMatching(/^[a-z0-9-]{1,8}$/);
    fc.assert(
      fc.property(
        fc.domain(),
        fc.integer({ min: 1, max: 65_535 }),
        fc.array(segment, { maxLength: 3 }),
        fc.constantFrom('http' as const, 'https' as const),
        (host, port, segments, scheme) => {
          const name = `${host}:${port}_${encodeURIComponent(segments.join('/'))}`;
          assert.equal(nodeNameForBaseUrl(baseUrlForNodeName(name, scheme)), name);
        },
      ),
    );
  });

  it('reads urlScheme from clusterprops.json and falls back to http', () => {
    assert.equal(urlSchemeFrom(Buffer.from('{"urlScheme":"https"}')), 'https');
    assert.equal(urlSchemeFrom(Buffer.from('{"urlScheme":"HTTPS"}')), 'https');
    assert.equal(urlSchemeFrom(Buffer.from('{}')), 'http');
    assert.equal(urlSchemeFrom(Buffer.from('not json')), 'http');
    assert.equal(urlSchemeFrom(Buffer.alloc(0)), 'http');
    assert.equal(urlSchemeFrom(null), 'http');
  });

  it('removes the user and password from URLs, parseable or not', () => {
    assert.equal(redactUrl('http://bob:secret@solr1:8983/solr'), 'http://solr1:8983/solr');
    assert.equal(redactUrl('http://solr1:8983/solr'), 'http://solr1:8983/solr');
    assert.equal(redactUrl('http://bob:se cret@solr 1/solr'), 'http://solr 1/solr');
  });
});
