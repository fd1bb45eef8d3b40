// `searchdeck demo` as a user runs it: the built CLI against a real searchdeck process and the
// run's real SolrCloud. The demo gets a collection of its own (the shared `products` one is
// only looked at), and is run twice: the second run must change nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEMO_QUERY, demoProducts } from '../../src/demo/demo.js';
import { runCli, type ServiceProcess, startService } from '../helpers/process.js';
import { solrAdmin, solrSkipReason, type TestSolr, testSolr } from '../helpers/solr.js';

const PASSWORD = 'demo-admin-password';
const basic = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;

let service: ServiceProcess;

const env = () => ({ SEARCHDECK_URL: service.url, SEARCHDECK_ADMIN_PASSWORD: PASSWORD });

async function admin(path: string): Promise<unknown> {
  const response = await fetch(`${service.url}${path}`, { headers: { authorization: basic } });
  assert.equal(response.status, 200, `${path}: ${response.status}`);
  return response.json();
}

/** What a run could change: the app's objects (the export, its time aside) and the history's length. */
async function state(app: string): Promise<{ objects: unknown; history: number }> {
  const exported = (await admin(`/api/objects/export?app=${app}`)) as { metadata: Record<string, unknown> };
  delete exported.metadata.exportedAt;
  const history = (await admin('/api/history?size=1')) as { page: { totalElements: number } };
  return { objects: exported, history: history.page.totalElements };
}

/** The object lines a run printed (before the summary), as `object: outcome`. */
function objectLines(stdout: string): string[] {
  const [objects] = stdout.split('\n\n');
  return objects!.split('\n').slice(1);
}

async function shopperQuery(url: string, key: string, q: string) {
  const response = await fetch(url.replace(/([?&]q=)[^&]*/, `$1${encodeURIComponent(q)}`), {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as {
    response: { numFound: number; docs: Array<{ id: string }> };
    fusion: {
      rewrittenQuery: string;
      rules: Array<{ name: string }>;
      banners: Array<{ url: string; zone: string }>;
      redirect: string | null;
    };
  };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('searchdeck demo', () => {
  // One searchdeck process for the file (a start costs a second or two); SQLite, since the demo
  // is an HTTP client and storage plays no part in it.
  const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-demo-'));
  before(async () => {
    service = await startService({ SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_ADMIN_PASSWORD: PASSWORD });
  });
  after(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('on a SolrCloud', { skip: solrSkipReason() }, () => {
    let solr: TestSolr;
    const collection = `demo_${process.pid}_${Date.now()}`;
    before(async () => {
      solr = await testSolr();
    });
    after(async () => {
      if (solr)
        await solrAdmin(solr)
          .deleteCollection(collection)
          .catch(() => undefined);
    });

    test('fills searchdeck and Solr, prints a query that is merchandised, and changes nothing when run again', async () => {
      const args = ['demo', '--zk', solr.zk, '--collection', collection];
      const first = await runCli(
        [...args, '--solr-user', solr.credentials.username, '--solr-password', solr.credentials.password],
        env(),
      );
      assert.equal(first.status, 0, first.stderr);
      assert.equal(first.stderr, '');
      const lines = objectLines(first.stdout);
      assert.match(first.stdout, /^searchdeck at http:\/\/127\.0\.0\.1:\d+: signed in as admin\n/);
      assert.ok(
        lines.includes(`search cluster shop-solr: created, checked with ?validate=true (${solr.zk})`),
      );
      assert.ok(lines.includes('app shop: created, by putting the search cluster in its context'));
      assert.ok(
        lines.includes(
          `collection ${collection}: created from configset products; 3000 sample products indexed`,
        ),
      );
      assert.equal(lines.filter((l) => /^rule .*: created and published$/.test(l)).length, 5);
      assert.equal(lines.filter((l) => /^rewrite .*: created and published$/.test(l)).length, 2);
      assert.ok(
        lines.some((l) =>
          /^typeahead instance shop: created, with 6 terms; embed token \(shown once\): \S+$/.test(l),
        ),
      );
      assert.ok(lines.includes(`query profile shop/web: created (collection ${collection})`));
      assert.match(first.stdout, new RegExp(`${service.url}/console/query-profiles\\?app=shop&profile=web`));
      assert.equal(await solrAdmin(solr).count(collection), 3000);

      // The printed curl, sent as it is written.
      const curl = /curl -H 'Authorization: Bearer (sdq_\S+)' '(\S+)'/.exec(first.stdout);
      assert.ok(curl, first.stdout);
      const [, key, url] = curl;
      assert.equal(url, `${service.url}/api/apps/shop/query/web?q=${DEMO_QUERY}`);
      const { pinned, blocked } = demoProducts();
      const kettle = await shopperQuery(url!, key!, DEMO_QUERY);
      assert.ok(kettle.response.numFound > 100, `kettles found: ${kettle.response.numFound}`);
      assert.equal(kettle.response.docs[0]!.id, pinned.id);
      assert.ok(!kettle.response.docs.some((d) => d.id === blocked.id));
      assert.deepEqual(
        kettle.fusion.rules.map((r) => r.name.split(' ')[0]),
        ['Pin', 'Block', 'Boost', 'Banner'],
      );
      assert.equal(kettle.fusion.banners.length, 1);
      // The banner's picture is served by searchdeck itself, so the preview draws it.
      const picture = await fetch(kettle.fusion.banners[0]!.url);
      assert.equal(picture.status, 200, `the banner's picture at ${kettle.fusion.banners[0]!.url}`);
      assert.match(picture.headers.get('content-type') ?? '', /^image\/svg\+xml/);
      // The misspelling is corrected before the rules match; "help" redirects.
      const misspelt = await shopperQuery(url!, key!, 'kettel');
      assert.equal(misspelt.fusion.rewrittenQuery, 'kettle');
      assert.equal(misspelt.response.docs[0]!.id, pinned.id);
      assert.equal((await shopperQuery(url!, key!, 'help')).fusion.redirect, 'https://shop.example/help');

      // Again, with Solr's credentials from the environment this time: nothing changes.
      const before = await state('shop');
      const second = await runCli(args, {
        ...env(),
        SEARCHDECK_SOLR_USER: solr.credentials.username,
        SEARCHDECK_SOLR_PASSWORD: solr.credentials.password,
      });
      assert.equal(second.status, 0, second.stderr);
      const again = objectLines(second.stdout);
      assert.equal(again.length, lines.length, second.stdout);
      for (const line of again) assert.match(line, /: already there/, second.stdout);
      assert.deepEqual(await state('shop'), before);
      assert.equal(await solrAdmin(solr).count(collection), 3000);
      assert.match(second.stdout, /curl -H 'Authorization: Bearer <the search-only key>'/);
    });

    test('finds the shared products collection there, full, and leaves it as it is', async () => {
      const run = await runCli(
        ['demo', '--zk', solr.zk, '--app', 'catalog', '--solr-user', 'solr', '--solr-password', 'SolrRocks'],
        env(),
      );
      assert.equal(run.status, 0, run.stderr);
      assert.ok(
        objectLines(run.stdout).includes(`collection products: already there, ${solr.catalogSize} documents`),
      );
      assert.equal(await solrAdmin(solr).count(solr.collection), solr.catalogSize);
    });

    test('on a standalone Solr, says in one line how to make a missing core, and makes nothing', async () => {
      const before = await state('lonely');
      const run = await runCli(
        ['demo', '--solr-url', solr.url, '--app', 'lonely', '--collection', `absent_${process.pid}`],
        { ...env(), SEARCHDECK_SOLR_USER: 'solr', SEARCHDECK_SOLR_PASSWORD: 'SolrRocks' },
      );
      assert.equal(run.status, 1);
      assert.match(
        run.stderr,
        /^searchdeck demo: Solr at \S+ has no core absent_\d+: create it from the products configset .* bin\/solr create -c absent_\d+ -d .*\n$/,
      );
      assert.deepEqual(await state('lonely'), before);
    });
  });

  // Each runs a CLI process of its own and none of them changes what another looks at: they run
  // side by side, so that their processes' starts overlap.
  describe('failures', { concurrency: true }, () => {
    /** One line on standard error, nothing else, no stack, exit code `status`. */
    function oneLine(
      run: { status: number | null; stdout: string; stderr: string },
      status: number,
      pattern: RegExp,
    ) {
      assert.equal(run.status, status, run.stderr);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr.split('\n').length, 2, run.stderr);
      assert.match(run.stderr, pattern);
    }

    test('a wrong admin password', async () => {
      const run = await runCli(
        ['demo', '--solr-url', 'http://127.0.0.1:8983/solr', '--password', 'not-the-password'],
        {
          SEARCHDECK_URL: service.url,
        },
      );
      oneLine(
        run,
        1,
        /^searchdeck demo: searchdeck at \S+ refused the password of admin: give the admin password with --password or SEARCHDECK_ADMIN_PASSWORD\n$/,
      );
    });

    test('searchdeck not running', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const run = await runCli(['demo', '--zk', '127.0.0.1:2181/solr', '--url', url], {
        SEARCHDECK_ADMIN_PASSWORD: PASSWORD,
      });
      oneLine(
        run,
        1,
        new RegExp(
          `^searchdeck demo: searchdeck is not reachable at ${url} \\(nothing is listening there\\): start it`,
        ),
      );
    });

    test('Solr not running', async () => {
      const solrUrl = `http://127.0.0.1:${await closedPort()}/solr`;
      const run = await runCli(['demo', '--solr-url', solrUrl, '--app', 'nosolr'], env());
      assert.equal(run.status, 1);
      assert.match(
        run.stderr,
        new RegExp(
          `^searchdeck demo: Solr is not reachable at ${solrUrl} \\(nothing is listening there\\): is it running\\?\n$`,
        ),
      );
    });

    test('no Solr named', async () => {
      oneLine(
        await runCli(['demo'], env()),
        2,
        /^searchdeck demo: name the Solr to use: --zk .* or --solr-url /,
      );
    });
  });
});
