// The Query profiles and API clients pages in a real browser against the real service on
// SQLite, with a real HTTP server playing a Solr node that echoes the parameters it received
// (as Solr's `echoParams=all` does): an admin creates a profile (a message beside the field
// first), sends a query through the workbench and sees the rewritten query, the rule that
// fired, the parameters Solr received and the results; a key is shown once and works until
// it is revoked; an API client's secret is shown once; a query whose cluster's ZooKeeper cannot
// be reached says so in the workbench; a viewer is offered no change.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  ADMIN,
  assertAccessible,
  browserSkipReason,
  type ConsoleService,
  chromiumForFile,
  csrfTokenOf,
  type EchoingSolr,
  seed,
  signedInContext,
  signIn,
  startConsoleService,
  startEchoingSolr,
} from '../helpers/console.js';
import { freePort } from '../helpers/zookeeper.js';

const skip = browserSkipReason();
const VIEWER = { username: 'vic', password: 'vic-password-1' };

let service: ConsoleService;
let browser: Browser;
let releaseChromium = async () => {};
let solr: EchoingSolr;

before(async () => {
  if (skip) return;
  solr = await startEchoingSolr();
  service = await startConsoleService();
  await seed(service);
  for (const [path, body] of [
    ['/api/apps/shop/searchCluster', { id: 'echo', cloud: false, connectString: solr.baseUrl }],
    ['/api/users', { ...VIEWER, role: 'viewer' }],
  ] as const) {
    const made = await service.admin('POST', path, body);
    assert.ok(made.status < 300, JSON.stringify(made));
  }
  ({ browser, release: releaseChromium } = await chromiumForFile());
});

after(async () => {
  await releaseChromium();
  await service?.stop();
  await solr?.close();
});

/** A published rule and a published misspelling rewrite in studio `shop`, made with the session. */
async function publishedContent(page: Page): Promise<void> {
  const headers = { 'x-csrf-token': await csrfTokenOf(page, service.url) };
  for (const [path, data] of [
    ['em-rules', { type: 'blockList', name: 'Block K-9', fieldName: 'id', fieldValues: ['K-9'] }],
    ['query-rewrites', { type: 'misspelling', misspelling: 'ketle', correction: 'kettle' }],
  ] as const) {
    const made = await page.request.post(`${service.url}/studios/shop/${path}`, { headers, data });
    assert.equal(made.status(), 201, await made.text());
    const { id } = (await made.json()) as { id: string };
    const published = await page.request.post(`${service.url}/studios/shop/${path}/${id}/publish`, {
      headers,
    });
    assert.equal(published.status(), 200, await published.text());
  }
}

test('query profiles: settings, the workbench and keys; API clients', { skip }, async (t) => {
  const context = await signedInContext(browser, service.url, ADMIN, {
    viewport: { width: 1280, height: 800 },
    bypassCSP: true,
  });
  const page = await context.newPage();
  t.after(() => context.close());
  await publishedContent(page);
  await page.goto(`${service.url}/console`);

  await t.test('an admin creates a profile; the API message shows beside its field', async () => {
    await page.getByRole('link', { name: 'Query profiles', exact: true }).click();
    // The app the cluster was created in is offered: as a choice on the page and in the field.
    const known = page.getByRole('navigation', { name: 'Apps' });
    await known.getByRole('button', { name: 'shop', exact: true }).waitFor();
    const options = page.locator('#known-apps option');
    assert.equal(await options.count(), 1);
    assert.equal(await options.getAttribute('value'), 'shop');
    await known.getByRole('button', { name: 'shop', exact: true }).click();
    await page.getByText('No query profile in shop yet.').waitFor();
    assert.equal(await page.getByLabel('App', { exact: true }).inputValue(), 'shop');
    assert.match(page.url(), /app=shop/);
    await page.getByRole('button', { name: 'New profile' }).click();
    await page.getByLabel('Profile id').fill('web');
    await page.getByLabel('Search cluster').selectOption('echo');
    await page.getByLabel('Collection').fill('no spaces allowed');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.locator('#profile-collection-error').waitFor();
    assert.equal(await page.getByLabel('Collection').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Collection').fill('products');
    await page.getByLabel('Studio (rules and rewrites)').selectOption('shop');
    await page.getByLabel(/Default Solr parameters/).fill('rows=5\nfl=id,name\ndefType=edismax');
    await page.getByLabel(/Fields a shopper may sort by/).fill('price, name');
    await page.getByLabel(/^Title field/).fill('name');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page
      .getByRole('row')
      .filter({ hasText: /web\s*echo \/ products\s*shop/ })
      .waitFor();
    // Stored as a profile made through the API holds them: a number stays a number.
    const saved = await service.admin('GET', '/api/apps/shop/query-profiles/web');
    assert.deepEqual((saved.body as { defaults: unknown }).defaults, {
      rows: 5,
      fl: 'id,name',
      defType: 'edismax',
    });
    // An empty list is no list: any plain field, as the API reads a profile without one.
    assert.deepEqual((saved.body as { sortFields?: string[] }).sortFields, ['price', 'name']);
    assert.equal((saved.body as { returnFields?: string[] }).returnFields, undefined);
    // The product cards' fields: only those filled in (the others keep their defaults).
    assert.deepEqual((saved.body as { display?: unknown }).display, { title: 'name' });
    await assertAccessible(page, 'query profiles');
  });

  await t.test('the workbench shows what the experience layer did and what Solr received', async () => {
    const workbench = page.getByRole('region', { name: 'Workbench of web' });
    await workbench.getByLabel("Shopper's query").fill('ketle');
    await workbench.getByRole('button', { name: 'Send query' }).click();
    // The products as cards, live and staging; the search engineer's details are one click away.
    await workbench
      .getByRole('region', { name: 'Live results' })
      .getByRole('listitem')
      .filter({ hasText: 'Stove kettle' })
      .waitFor();
    await workbench
      .getByRole('region', { name: 'Staging results' })
      .getByRole('listitem')
      .filter({ hasText: 'Stove kettle' })
      .waitFor();
    await workbench.getByText(/^Details for search engineers/).click();
    await workbench.getByText('Rewritten query: kettle').waitFor();
    await workbench
      .getByRole('table', { name: 'Rules that fired' })
      .getByRole('cell', { name: 'Block K-9' })
      .waitFor();
    await workbench
      .getByRole('table', { name: 'Rewrites applied' })
      .getByRole('row')
      .filter({ hasText: /Misspelling\s*ketle\s*kettle/ })
      .waitFor();
    const received = workbench.getByRole('table', { name: 'Parameters Solr received' });
    assert.match((await received.getByRole('row', { name: /^rows/ }).textContent()) ?? '', /rows\s*5/);
    assert.match((await received.getByRole('row', { name: /^fq/ }).textContent()) ?? '', /K-9/);
    assert.match((await received.getByRole('row', { name: /^q / }).textContent()) ?? '', /kettle/);
    await workbench
      .getByRole('table', { name: /Results: 2 found, 2 shown/ })
      .getByText('Stove kettle')
      .waitFor();
    await assertAccessible(page, 'query workbench');
  });

  await t.test('a new key is shown once, opens the query endpoint, and is refused once revoked', async () => {
    const keys = page.getByRole('region', { name: 'Search-only keys of web' });
    await keys.getByRole('button', { name: 'New key' }).click();
    const key = (await keys.getByRole('status').getByLabel('New key').textContent()) ?? '';
    assert.match(key, /^sdq_/);
    const query = () =>
      fetch(`${service.url}/api/apps/shop/query/web?q=kettle`, {
        headers: { authorization: `Bearer ${key}` },
      });
    assert.equal((await query()).status, 200);
    await assertAccessible(page, 'keys');
    await keys.getByRole('button', { name: /^Revoke key / }).click();
    // Asked first: the shop's searches with the key stop.
    const dialog = page.getByRole('dialog', { name: /^Revoke the key \w+ of web\?$/ });
    assert.match((await dialog.textContent()) ?? '', /refused at once/);
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await keys.getByText('No key yet.').waitFor();
    assert.equal(await keys.getByLabel('New key').count(), 0, 'the key is not shown again');
    assert.equal((await query()).status, 401);
  });

  await t.test("an admin creates a studio's API client, sees its secret once and revokes it", async () => {
    await page.getByRole('link', { name: 'API clients', exact: true }).click();
    await page.getByLabel('Studio', { exact: true }).selectOption('shop');
    await page.getByRole('button', { name: 'New API client' }).click();
    await page.getByLabel('Client name').fill('feed importer');
    await page.getByLabel('commercestudio.rules').check();
    await page.getByRole('button', { name: 'Create client' }).click();
    const clientId = (await page.getByLabel('Client id').textContent()) ?? '';
    const secret = (await page.getByLabel('Client secret').textContent()) ?? '';
    assert.ok(secret.length > 20);
    const token = await fetch(`${service.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
      }),
    });
    assert.equal(token.status, 200, await token.text());
    await page
      .getByRole('row')
      .filter({ hasText: /feed importer.*commercestudio\.rules/ })
      .waitFor();
    await assertAccessible(page, 'API clients');
    await page.reload();
    assert.equal(await page.getByLabel('Client secret').count(), 0, 'the secret is not shown again');
    await page.getByRole('button', { name: 'Revoke feed importer' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke the API client "feed importer"?' })
      .getByRole('button', { name: 'Revoke client' })
      .click();
    await page.getByText('No API client in shop yet.').waitFor();
  });

  await t.test(
    "the workbench says why a query failed: its cluster's ZooKeeper cannot be reached",
    async () => {
      // A SolrCloud whose ZooKeeper is nowhere: the query gives up after the profile's half second.
      const zooKeeper = `127.0.0.1:${await freePort()}/solr`;
      for (const [path, body] of [
        [
          '/api/apps/shop/searchCluster',
          { id: 'lost', cloud: true, connectString: zooKeeper, zkConnectTimeout: 30_000 },
        ],
        [
          '/api/apps/shop/query-profiles',
          { id: 'lost', searchCluster: 'lost', collection: 'products', timeoutMs: 500 },
        ],
      ] as const) {
        const made = await service.admin('POST', path, body);
        assert.ok(made.status < 300, JSON.stringify(made));
      }
      await page.goto(`${service.url}/console/query-profiles?app=shop&profile=lost`);
      const workbench = page.getByRole('region', { name: 'Workbench of lost' });
      await workbench.getByLabel("Shopper's query").fill('kettle');
      await workbench.getByRole('button', { name: 'Send query' }).click();
      const alert = workbench.getByRole('alert');
      await alert.waitFor();
      assert.equal(
        await alert.textContent(),
        'The search cluster did not answer in time. ' +
          `ZooKeeper at ${zooKeeper} could not be reached within 500 ms: ` +
          'the live Solr nodes of search cluster lost are not known yet (504 solr-timeout)',
      );
      await assertAccessible(page, 'query workbench with a failed query');
    },
  );

  await t.test('a viewer sends queries but is offered no change, and no API clients', async () => {
    await context.clearCookies();
    await signIn(page, service.url, VIEWER);
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.getByRole('link', { name: 'API clients' }).count(), 0);
    await page.goto(`${service.url}/console/query-profiles?app=shop&profile=web`);
    const workbench = page.getByRole('region', { name: 'Workbench of web' });
    await workbench.getByLabel("Shopper's query").fill('kettle');
    await workbench.getByRole('button', { name: 'Send query' }).click();
    await workbench.getByText(/^Details for search engineers/).click();
    await workbench.getByText('Rewritten query: kettle').waitFor();
    // The live products only: staging is for those who may change the studio's rules.
    await workbench
      .getByRole('region', { name: 'Staging results' })
      .getByText('The drafts of studio shop are shown to those who may change its rules.')
      .waitFor();
    for (const name of [
      'New profile',
      /^Edit /,
      /^Delete /,
      'New key',
      /^Revoke /,
      /^Pin here/,
      /^Block/,
      /^Boost/,
    ]) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, String(name));
    }
    await page.goto(`${service.url}/console/api-clients`);
    await page.getByText('Only an admin manages API clients.').waitFor();
  });
});
