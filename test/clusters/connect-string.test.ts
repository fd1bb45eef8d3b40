import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { solrBaseUrlProblem, zooKeeperConnectStringProblem } from '../../src/clusters/connect-string.js';

describe('the shape of a ZooKeeper connect string', () => {
  for (const good of [
    'zk1:2181',
    'zk1:2181,zk2:2181,zk3:2181/solr',
    '10.0.0.1:2181/solr/prod',
    'zk-1.internal.example:2181,zk_2:2182/search.v9',
  ]) {
    test(`accepts ${good}`, () => assert.equal(zooKeeperConnectStringProblem(good), undefined));
  }

  for (const [bad, why] of [
    ['zk1', /"zk1" is not host:port/],
    ['zk1:2181,', /"" is not host:port/],
    ['zk1:99999', /99999 is not a port number/],
    ['zk1:0/solr', /0 is not a port number/],
    ['zk1:2181/solr/', /the chroot "\/solr\/" must be a ZooKeeper path/],
    ['zk1:2181/', /the chroot "\/"/],
    ['zk1:2181/solr/../x', /the chroot/],
    ['zk1:2181/so lr', /the chroot/],
    ['[::1]:2181', /is not host:port/],
    ['http://solr1:8983/solr', /is a URL, but cloud is true .*set cloud to false/],
  ] as const) {
    test(`rejects ${bad || '(empty)'}`, () => assert.match(zooKeeperConnectStringProblem(bad) ?? '', why));
  }

  test('never repeats what may be credentials', () => {
    const problem = zooKeeperConnectStringProblem('admin:Sup3r-s3cret@zk1:2181') ?? '';
    assert.match(problem, /a server is not host:port/);
    assert.ok(!problem.includes('Sup3r'));
  });
});

describe('the shape of a standalone Solr base URL', () => {
  for (const good of ['http://solr1:8983/solr', 'https://solr.example/solr/', 'http://127.0.0.1:8983']) {
    test(`accepts ${good}`, () => assert.equal(solrBaseUrlProblem(good), undefined));
  }

  for (const [bad, why] of [
    ['solr1:8983/solr', /http\(s\) base URL/],
    ['ftp://solr1/solr', /the scheme is ftp:/],
    ['http://solr1:8983/solr?wt=json', /no query or fragment/],
    ['http://solr1:8983/solr#x', /no query or fragment/],
  ] as const) {
    test(`rejects ${bad}`, () => assert.match(solrBaseUrlProblem(bad) ?? '', why));
  }

  test('rejects credentials in the URL without repeating them', () => {
    const problem = solrBaseUrlProblem('http://admin:Sup3r-s3cret@solr1:8983/solr') ?? '';
    assert.match(problem, /must not carry credentials; put them in authConfig/);
    assert.ok(!problem.includes('Sup3r'));
  });
});
