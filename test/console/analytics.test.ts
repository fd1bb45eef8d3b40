// The Analytics page in a real browser, against the real service (SQLite) and the test run's
// real SolrCloud (read only), fed the way a shop feeds it: searches made with the profile's
// search-only key, and the shoppers' clicks and purchases posted to the Signals API with the
// query ids those answers carried. A merchandiser sees the range's figures, the top searches,
// the searches that found nothing, a search's drill-down (its clicked products), and downloads
// a table as CSV; the page passes axe and fits a phone. Its time is mostly the rollup's
// schedule: a signal counts within 10 s, waited for on the API before the page is opened.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  assertAccessible,
  browserSkipReason,
  type ConsoleService,
  chromiumForFile,
  MERCHANDISER,
  seed,
  signedInContext,
  startConsoleService,
} from '../helpers/console.js';
import { eventually } from '../helpers/eventually.js';
import { solrSkipReason, testSolr } from '../helpers/solr.js';

const skip = browserSkipReason() ?? solrSkipReason();

let service: ConsoleService;
let browser: Browser;
let releaseChromium = async () => {};
let clicked = '';

/** A shopper's query with the search-only key: the answer's query id and its first product. */
async function shopperSearch(
  key: string,
  q: string,
): Promise<{ queryId: string; first: string | undefined }> {
  const answer = await fetch(`${service.url}/api/apps/shop/query/web?q=${encodeURIComponent(q)}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(answer.status, 200, await answer.clone().text());
  const body = (await answer.json()) as { response: { docs: { id: string }[] } };
  return { queryId: answer.headers.get('x-fusion-query-id') ?? '', first: body.response.docs[0]?.id };
}

before(async () => {
  if (skip) return;
  const solr = await testSolr();
  service = await startConsoleService();
  await seed(service);
  for (const [path, body] of [
    [
      '/api/apps/shop/searchCluster',
      { id: 'solr', connectString: solr.zk, authConfig: { authType: 'BASIC', ...solr.credentials } },
    ],
    [
      '/api/apps/shop/query-profiles',
      {
        id: 'web',
        searchCluster: 'solr',
        collection: solr.collection,
        studio: 'shop',
        // The id breaks ties of score: the two replicas may order equal products unalike, and
        // the clicked product must be first in every kettle search for its click position.
        defaults: { rows: 5, sort: 'score desc,id asc' },
      },
    ],
  ] as const) {
    const made = await service.admin('POST', path, body);
    assert.ok(made.status < 300, JSON.stringify(made));
  }
  const key = await service.admin('POST', '/api/apps/shop/query-profiles/web/keys');
  const secret = (key.body as { key: string }).key;
  assert.ok(secret, JSON.stringify(key));

  // Six searches: kettle four times (two clicked, one of them bought), toaster once, and one
  // that finds nothing.
  const kettles = [];
  for (let i = 0; i < 4; i++) kettles.push(await shopperSearch(secret, 'kettle'));
  await shopperSearch(secret, 'toaster');
  await shopperSearch(secret, 'qqqzzzxxx');
  clicked = kettles[0]!.first!;
  const signals = [
    { type: 'click', params: { query: 'kettle', docId: clicked, fusion_query_id: kettles[0]!.queryId } },
    { type: 'purchase', params: { query: 'kettle', docId: clicked, fusion_query_id: kettles[0]!.queryId } },
    { type: 'click', params: { query: 'kettle', docId: clicked, fusion_query_id: kettles[1]!.queryId } },
  ];
  const posted = await fetch(`${service.url}/api/apps/shop/signals/${solr.collection}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(signals),
  });
  assert.equal(posted.status, 200, await posted.text());
  // Counted within 10 s: the rollup's schedule, waited for on the API.
  await eventually(
    async () => {
      const top = await service.admin('GET', '/api/apps/shop/analytics/web/searches');
      const searches = (top.body as { searches: { search: string; count: number; clickCount: number }[] })
        .searches;
      assert.equal(searches.find((s) => s.search === 'kettle')?.clickCount, 2, JSON.stringify(top.body));
    },
    { within: 20_000, every: 250, message: 'the clicks were not counted' },
  );
  ({ browser, release: releaseChromium } = await chromiumForFile());
});

after(async () => {
  await releaseChromium();
  await service?.stop();
});

async function analyticsPage(width: number): Promise<Page> {
  const context = await signedInContext(browser, service.url, MERCHANDISER, {
    viewport: { width, height: 900 },
    bypassCSP: true,
    acceptDownloads: true,
  });
  const page = await context.newPage();
  await page.goto(`${service.url}/console/analytics?app=shop&profile=web`);
  await page.getByRole('region', { name: 'Top searches' }).getByRole('table').waitFor();
  return page;
}

test('the Analytics page: the range’s figures, the top searches, a search’s clicked products, CSV', {
  skip,
}, async (t) => {
  const page = await analyticsPage(1280);
  t.after(() => page.context().close());

  const overview = page.getByRole('region', { name: /^Overview/ });
  const figure = (name: string) =>
    overview
      .locator('.figure')
      .filter({ has: page.locator('.figure-name').getByText(name, { exact: true }) })
      .locator('.figure-value')
      .textContent();
  assert.equal(await figure('Searches'), '6');
  assert.equal(await figure('Click-through rate'), '33.3 %', 'two of six searches clicked');
  assert.equal(await figure('Conversion rate'), '16.7 %', 'one bought');
  assert.equal(await figure('No results'), '16.7 %', 'one found nothing');
  await page.getByRole('img', { name: /^Searches and rates per day, .*: 6 searches/ }).waitFor();

  const top = page.getByRole('region', { name: 'Top searches' });
  const [search, searches, , clicks, clickThrough] = await top
    .getByRole('row')
    .nth(1)
    .getByRole('cell')
    .allTextContents();
  assert.deepEqual([search, searches, clicks, clickThrough], ['kettle', '4', '2', '50 %']);
  await page
    .getByRole('region', { name: 'Searches without results' })
    .getByRole('cell', { name: 'qqqzzzxxx' })
    .waitFor();

  await t.test('a search opens its drill-down: its clicked products', async () => {
    await top.getByRole('button', { name: 'kettle: its rules and products', exact: true }).click();
    const details = page.getByRole('region', { name: 'Search “kettle”' });
    await details.getByText('4 searches in these days.').waitFor();
    const products = details.getByRole('table', { name: 'Products clicked after the search “kettle”' });
    assert.deepEqual(await products.getByRole('row').nth(1).getByRole('cell').allTextContents(), [
      clicked,
      '2',
      '1',
      '0',
    ]);
    assert.match(page.url(), /[?&]search=kettle/, 'the drill-down is in the URL');
    await assertAccessible(page, 'the Analytics page with a drill-down');
  });

  await t.test('a table downloads as CSV, rates as fractions', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      top.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    assert.match(
      download.suggestedFilename(),
      /^web-top-searches-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/,
    );
    const csv = await readFile((await download.path())!, 'utf8');
    const [header, kettle] = csv.split('\r\n');
    assert.equal(
      header,
      'Search,Searches,Results (latest),Clicks,Click-through rate,Average click position,Purchases,Conversion rate,Add-to-cart rate',
    );
    assert.match(kettle ?? '', /^kettle,4,\d+,2,0\.5,1,1,0\.25,0$/);
  });
});

test('at 390 px the Analytics page fits the window and passes axe', { skip }, async (t) => {
  const page = await analyticsPage(390);
  t.after(() => page.context().close());
  const { scrollWidth, innerWidth } = (await page.evaluate(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  )) as { scrollWidth: number; innerWidth: number };
  assert.ok(scrollWidth <= innerWidth, `the page is ${scrollWidth} px wide in ${innerWidth}`);
  await assertAccessible(page, 'the Analytics page at 390 px');
});
