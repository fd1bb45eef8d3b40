// The query workbench's preview in a real browser, against the real service (SQLite) and the
// test run's real SolrCloud (the shared `products` collection, read only): a merchandiser types
// "kettle" and sees product cards in the live and the staging column; "Pin here" on a live
// card makes a draft pin rule, after which staging shows that product first and live does
// not; a second pin extends the same draft; "Block" and "Boost" act in staging only; the data
// a rule sends to the page and the facets' order are told in the column of the rules. At
// 390 px the workbench does not scroll sideways and the columns stand one above the other.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  assertAccessible,
  browserSkipReason,
  type ConsoleService,
  chromiumForFile,
  csrfTokenOf,
  MERCHANDISER,
  seed,
  signedInContext,
  startConsoleService,
} from '../helpers/console.js';
import { solrSkipReason, testSolr } from '../helpers/solr.js';

const skip = browserSkipReason() ?? solrSkipReason();

let service: ConsoleService;
let browser: Browser;
let releaseChromium = async () => {};

before(async () => {
  if (skip) return;
  const solr = await testSolr();
  service = await startConsoleService();
  await seed(service);
  for (const [path, body] of [
    [
      '/api/apps/shop/searchCluster',
      {
        id: 'solr',
        connectString: solr.zk,
        zkConnectTimeout: 5000,
        authConfig: { authType: 'BASIC', ...solr.credentials },
      },
    ],
    [
      '/api/apps/shop/query-profiles',
      {
        id: 'web',
        searchCluster: 'solr',
        collection: solr.collection,
        studio: 'shop',
        // The id breaks ties of score, so that both columns order equal products alike.
        defaults: { rows: 10, fl: 'id,name,brand,price', sort: 'score desc,id asc' },
        display: { title: 'name', price: 'price' },
      },
    ],
  ] as const) {
    const made = await service.admin('POST', path, body);
    assert.ok(made.status < 300, JSON.stringify(made));
  }
  ({ browser, release: releaseChromium } = await chromiumForFile());
});

after(async () => {
  await releaseChromium();
  await service?.stop();
});

/** The titles of a column's product cards, in order. */
async function titles(column: Locator): Promise<string[]> {
  return column
    .getByRole('list', { name: /products$/ })
    .locator(':scope > li .product-title')
    .allTextContents();
}

/** Sends a query from the workbench and waits until both columns show their products. */
async function search(page: Page, q: string) {
  const workbench = page.getByRole('region', { name: 'Workbench of web' });
  await workbench.getByLabel("Shopper's query").fill(q);
  await workbench.getByRole('button', { name: 'Send query' }).click();
  const live = workbench.getByRole('region', { name: 'Live results' });
  const staging = workbench.getByRole('region', { name: 'Staging results' });
  for (const column of [live, staging]) {
    await column
      .getByRole('list', { name: /products$/ })
      .getByRole('listitem')
      .first()
      .waitFor();
    await column.and(page.locator('[aria-busy="false"]')).waitFor();
  }
  return { workbench, live, staging };
}

test('the preview: product cards live and staging; "Pin here" makes a draft that only staging shows', {
  skip,
}, async (t) => {
  const context = await signedInContext(browser, service.url, MERCHANDISER, {
    viewport: { width: 1280, height: 900 },
    bypassCSP: true,
  });
  const page = await context.newPage();
  t.after(() => context.close());
  await page.goto(`${service.url}/console/query-profiles?app=shop&profile=web`);
  const { live, staging } = await search(page, 'kettle');

  // Nothing is staged yet: the same products in both, titled by the display field, with a price.
  const before = await titles(live);
  assert.equal(before.length, 10);
  assert.ok(
    before.every((title) => /kettle/i.test(title)),
    before.join(', '),
  );
  assert.deepEqual(await titles(staging), before);
  assert.match((await live.locator('.product-price').first().textContent()) ?? '', /^\d+\.\d\d$/);

  await t.test('"Pin here" on a live card: a draft pin, staging shows the product first', async () => {
    const chosen = before[4]!;
    await live.getByRole('button', { name: `Pin here: ${chosen}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `“${chosen}” now comes first for “kettle”` })
      .waitFor();
    await staging.and(page.locator('[aria-busy="false"]')).waitFor();
    await eventuallyFirst(staging, chosen);
    assert.equal((await titles(live))[0], before[0], 'live does not change before a publish');
    const card = staging.getByRole('listitem').filter({ hasText: chosen }).first();
    await card.getByText('Pinned at position 1 by “Pinned for: kettle”').waitFor();
    await card.getByText('5th in live').waitFor();

    const rules = await page.request.get(`${service.url}/studios/shop/em-rules?types=pinned`);
    assert.equal(rules.status(), 200, await rules.text());
    const { content } = (await rules.json()) as {
      content: Array<{ publishState: string; conditions: { queries: string[] }; pinnedValues: unknown }>;
    };
    assert.equal(content.length, 1);
    assert.equal(content[0]!.publishState, 'DRAFT');
    assert.deepEqual(content[0]!.conditions.queries, ['kettle']);
    await assertAccessible(page, 'query preview');
  });

  await t.test('a second pin extends the same draft: the newest first', async () => {
    const second = before[2]!;
    await live.getByRole('button', { name: `Pin here: ${second}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `“${second}” now comes first` })
      .waitFor();
    await eventuallyFirst(staging, second);
    assert.deepEqual((await titles(staging)).slice(0, 2), [second, before[4]]);
    const rules = await page.request.get(`${service.url}/studios/shop/em-rules?types=pinned`);
    const { content } = (await rules.json()) as { content: Array<{ pinnedValues: { position: number }[] }> };
    assert.equal(content.length, 1, 'the draft is extended, not doubled');
    assert.deepEqual(
      content[0]!.pinnedValues.map((p) => p.position),
      [1, 2],
    );
  });

  await t.test('"Block" hides a product in staging only; "Boost" marks it there', async () => {
    const blocked = before[7]!;
    await live.getByRole('button', { name: `Block: ${blocked}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `“${blocked}” is now hidden` })
      .waitFor();
    await staging.and(page.locator('[aria-busy="false"]')).waitFor();
    assert.ok(!(await titles(staging)).includes(blocked), 'blocked in staging');
    assert.ok((await titles(live)).includes(blocked), 'still live');
    const boosted = before[9]!;
    await live.getByRole('button', { name: `Boost: ${boosted}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `“${boosted}” is now boosted` })
      .waitFor();
    await staging
      .getByRole('listitem')
      .filter({ hasText: boosted })
      .getByText('Boosted by “Boosted for: kettle”')
      .waitFor();
  });

  await t.test('a banner whose picture cannot be loaded is drawn as a frame naming its address', async () => {
    const made = await page.request.post(`${service.url}/studios/shop/em-rules`, {
      headers: { 'x-csrf-token': await csrfTokenOf(page, service.url) },
      data: {
        type: 'banner',
        name: 'Kettle week',
        bannerUrl: 'http://127.0.0.1:9/kettle-week.png',
        conditions: { queries: ['kettle'] },
      },
    });
    assert.equal(made.status(), 201, await made.text());
    const { staging } = await search(page, 'kettle');
    const banner = staging.getByRole('figure').filter({ hasText: '“Kettle week”, top zone' });
    await banner
      .getByText("The banner's picture could not be loaded from http://127.0.0.1:9/kettle-week.png")
      .waitFor();
  });

  await t.test(
    'the data sent to the page and the facets’ order are told in the column of their rules',
    async () => {
      const headers = { 'x-csrf-token': await csrfTokenOf(page, service.url) };
      for (const data of [
        {
          type: 'responseValue',
          name: 'Kettle campaign',
          responseValues: [
            { key: 'hero', value: { title: 'Kettle week' } },
            { key: 'layout', value: 'grid' },
          ],
          conditions: { queries: ['kettle'] },
        },
        {
          type: 'setFacetList',
          name: 'Kettle facets',
          facetFields: ['brand', 'category'],
          conditions: { queries: ['kettle'] },
        },
      ]) {
        const made = await page.request.post(`${service.url}/studios/shop/em-rules`, { headers, data });
        assert.equal(made.status(), 201, await made.text());
      }
      const { live, staging } = await search(page, 'kettle');
      await staging.getByText('Facets in this order: brand, category.').waitFor();
      const sent = staging.locator('.preview-data');
      await sent.getByText('Data sent to the page:').waitFor();
      assert.deepEqual(await sent.locator('dt').allInnerTexts(), ['hero', 'layout']);
      assert.deepEqual(await sent.locator('dd').allInnerTexts(), ['{"title":"Kettle week"}', 'grid']);
      // The drafts are not live.
      assert.equal(await live.locator('.preview-data, .preview-facets').count(), 0);
    },
  );

  await t.test('at 390 px the workbench does not scroll sideways; the columns are stacked', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const { workbench } = await search(page, 'kettle');
    const box = await workbench.evaluate((element) => ({
      scroll: element.scrollWidth,
      client: element.clientWidth,
      widest: Math.max(...[...element.querySelectorAll('*')].map((e) => e.getBoundingClientRect().right)),
      right: element.getBoundingClientRect().right,
    }));
    assert.ok(box.scroll <= box.client, JSON.stringify(box));
    assert.ok(box.widest <= box.right + 0.5, `a part of the workbench sticks out: ${JSON.stringify(box)}`);
    const [liveBox, stagingBox] = await Promise.all(
      ['Live results', 'Staging results'].map((name) =>
        workbench.getByRole('region', { name }).boundingBox(),
      ),
    );
    assert.ok(stagingBox!.y >= liveBox!.y + liveBox!.height, 'staging is below live');
    await assertAccessible(page, 'query preview at 390 px');
  });
});

/** Waits until the column's first card is `title` (the column refreshes after the rule is saved). */
async function eventuallyFirst(column: Locator, title: string): Promise<void> {
  await column
    .getByRole('list', { name: /products$/ })
    .locator(':scope > li')
    .first()
    .locator('.product-title', { hasText: title })
    .waitFor();
}
