// The Experiments page in a real browser, against the real service (SQLite) and a real HTTP
// server playing a Solr node that echoes the parameters it received. An admin sets up an
// experiment on a query profile in the page (a parameter no one may send is refused first,
// beside its field, and nothing is stored), starts it; shoppers search with the profile's
// search-only key, each with their own id, and the shop posts their clicks to the Signals API:
// variant B's shoppers click far more often. The page then shows each variant's rates with
// their intervals and says that B gets more clicks, clearly; promoting B (asked first, the
// dialog naming the change) makes B's parameter the profile's own. The page passes axe and
// fits a phone. Its time is mostly the rollup's schedule (a signal counts within 10 s), waited
// for on the API.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  ADMIN,
  assertAccessible,
  browserSkipReason,
  type ConsoleService,
  chromiumForFile,
  type EchoingSolr,
  MERCHANDISER,
  seed,
  signedInContext,
  startConsoleService,
  startEchoingSolr,
} from '../helpers/console.js';
import { eventually } from '../helpers/eventually.js';

const skip = browserSkipReason();

let service: ConsoleService;
let browser: Browser;
let releaseChromium = async () => {};
let solr: EchoingSolr;
let key = '';

before(async () => {
  if (skip) return;
  solr = await startEchoingSolr();
  service = await startConsoleService();
  await seed(service);
  for (const [path, body] of [
    ['/api/apps/shop/searchCluster', { id: 'echo', cloud: false, connectString: solr.baseUrl }],
    [
      '/api/apps/shop/query-profiles',
      { id: 'web', searchCluster: 'echo', collection: 'products', studio: 'shop', defaults: { rows: '5' } },
    ],
  ] as const) {
    const made = await service.admin('POST', path, body);
    assert.ok(made.status < 300, JSON.stringify(made));
  }
  const made = await service.admin('POST', '/api/apps/shop/query-profiles/web/keys');
  key = (made.body as { key: string }).key;
  assert.ok(key, JSON.stringify(made));
  ({ browser, release: releaseChromium } = await chromiumForFile());
});

after(async () => {
  await releaseChromium();
  await service?.stop();
  await solr?.close();
});

interface ShopperSearch {
  queryId: string;
  variant: string | undefined;
  /** The parameters Solr received (the echo). */
  params: Record<string, string | string[]>;
  first: string;
}

/** A shopper's search with the search-only key, as the shop sends it: with the shopper's id. */
async function shopperSearch(shopper: string): Promise<ShopperSearch> {
  const answer = await fetch(`${service.url}/api/apps/shop/query/web?q=kettle&user_id=${shopper}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const text = await answer.text();
  assert.equal(answer.status, 200, text);
  const body = JSON.parse(text) as {
    responseHeader: { params: Record<string, string | string[]> };
    response: { docs: { id: string }[] };
    fusion?: { variant?: string };
  };
  return {
    queryId: answer.headers.get('x-fusion-query-id') ?? '',
    variant: body.fusion?.variant,
    params: body.responseHeader.params,
    first: body.response.docs[0]?.id ?? '',
  };
}

type Metrics = {
  variants: { id: string; searches: number; ctr: { value: number; low: number; high: number } }[];
};

test('an experiment set up, started, followed and its winner promoted, in the console', {
  skip,
}, async (t) => {
  const context = await signedInContext(browser, service.url, ADMIN, {
    viewport: { width: 1280, height: 900 },
    bypassCSP: true,
  });
  const page: Page = await context.newPage();
  t.after(() => context.close());
  await page.goto(`${service.url}/console`);
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Experiments', exact: true })
    .click();
  await page.getByRole('heading', { name: 'Experiments', level: 1 }).waitFor();
  await page.getByLabel('App', { exact: true }).fill('shop');
  await page.getByRole('button', { name: 'Show experiments' }).click();
  await page.getByText('No experiment in shop yet.').waitFor();

  await t.test(
    'set up from the profile: a parameter no one may send is refused beside its field',
    async () => {
      await page.getByRole('button', { name: 'New experiment' }).click();
      const form = page.getByRole('form', { name: 'New experiment' });
      assert.equal(await form.getByLabel('Query profile').inputValue(), 'web', 'the free profile is chosen');
      assert.equal(
        await form.getByLabel('Shopper parameter').inputValue(),
        'user_id',
        "the profile's shopper id",
      );
      await form.getByLabel('Experiment name').fill('popular-first');
      await form.getByLabel('What it tests').fill('Do shoppers click more when popular kettles come first?');
      const b = form.getByRole('group', { name: 'Variant 2', exact: true });
      assert.equal(await b.getByLabel('Name', { exact: true }).inputValue(), 'B');
      await b.getByRole('button', { name: 'Add a parameter change' }).click();
      await b.getByLabel('Parameter 1').fill('qt');
      await b.getByLabel('Value 1').fill('/debug');
      await form.getByRole('button', { name: 'Create experiment' }).click();
      const key = b.getByLabel('Parameter 1');
      await page.waitForFunction(
        "document.querySelector('#variant-1-param-0-key')?.getAttribute('aria-invalid') === 'true'",
      );
      const message = await page.locator('#variant-1-param-0-key-error').textContent();
      assert.match(message ?? '', /qt/, 'the message names the parameter');
      assert.doesNotMatch(message ?? '', /variants\[/, 'no API field name in the words');
      const stored = await service.admin('GET', '/api/apps/shop/experiments');
      assert.deepEqual(stored.body, [], 'nothing stored');

      await key.fill('sort');
      await b.getByLabel('Value 1').fill('popularity desc');
      await form.getByRole('button', { name: 'Create experiment' }).click();
      const view = page.getByRole('region', { name: 'Experiment popular-first' });
      await view.getByText('Not started yet').waitFor();
      const profile = await service.admin('GET', '/api/apps/shop/query-profiles/web');
      assert.equal(
        (profile.body as { experiment?: string }).experiment,
        'popular-first',
        'the profile runs it',
      );
      await view.getByRole('cell', { name: 'Solr parameter sort = popularity desc' }).waitFor();
    },
  );

  const view = page.getByRole('region', { name: 'Experiment popular-first' });
  await t.test('changed while stopped, then started: its settings are no longer offered', async () => {
    await view.getByRole('button', { name: 'Change settings' }).click();
    const form = page.getByRole('form', { name: 'Change the experiment popular-first' });
    assert.equal(await form.getByLabel('Experiment name').getAttribute('readonly'), '', 'the name stays');
    await form.getByLabel('What it tests').fill('Do popular kettles first get more clicks?');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await view.getByText('Do popular kettles first get more clicks?').waitFor();
    const stored = (await service.admin('GET', '/api/apps/shop/experiments/popular-first')).body as {
      description: string;
      variants: { params: unknown[] }[];
    };
    assert.equal(stored.description, 'Do popular kettles first get more clicks?');
    assert.equal(stored.variants[1]?.params.length, 1, 'the rest as it was');

    await view.getByRole('button', { name: 'Start' }).click();
    await view.getByText(/^Running since/).waitFor();
    assert.equal(await view.getByRole('button', { name: 'Change settings' }).count(), 0);
  });

  await t.test('started: shoppers are split, B’s searches get its parameter', async () => {
    // 40 shoppers search once each; B's shoppers click 4 searches in 5, A's 1 in 5.
    const signals: unknown[] = [];
    const seen = { a: 0, b: 0 };
    for (let i = 0; i < 40; i++) {
      const search = await shopperSearch(`shopper-${i}`);
      assert.ok(search.variant === 'a' || search.variant === 'b', `variant ${search.variant}`);
      assert.equal(search.params.sort, search.variant === 'b' ? 'popularity desc' : undefined);
      const n = seen[search.variant]++;
      const clicks = search.variant === 'b' ? n % 5 !== 0 : n % 5 === 0;
      if (clicks)
        signals.push({
          type: 'click',
          params: { query: 'kettle', docId: search.first, fusion_query_id: search.queryId },
        });
    }
    assert.ok(seen.a >= 8 && seen.b >= 8, `both groups have shoppers: ${JSON.stringify(seen)}`);
    const posted = await fetch(`${service.url}/api/apps/shop/signals/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(signals),
    });
    assert.equal(posted.status, 200, await posted.text());
    // Counted within 10 s: the rollup's schedule, waited for on the API.
    await eventually(
      async () => {
        const metrics = (await service.admin('GET', '/api/apps/shop/experiments/popular-first/metrics'))
          .body as Metrics;
        const b = metrics.variants.find((v) => v.id === 'b');
        assert.equal(b?.searches, seen.b, JSON.stringify(metrics));
        assert.ok((b?.ctr.value ?? 0) > 0.5, JSON.stringify(metrics));
      },
      { within: 20_000, every: 250, message: 'the searches and clicks were not counted' },
    );
  });

  await t.test(
    'the results: rates with intervals, and in words that B gets more clicks, clearly',
    async () => {
      await view.getByRole('button', { name: 'Count again' }).click();
      const results = view.getByRole('region', { name: 'Results of popular-first' });
      // Each variant's click-through rate and its interval, as the API gives them, in words.
      const metrics = (await service.admin('GET', '/api/apps/shop/experiments/popular-first/metrics'))
        .body as Metrics;
      const percent = (rate: number) =>
        `${(rate * 100).toLocaleString('en-US', { maximumFractionDigits: 1 })} %`;
      const chart = results.getByRole('figure', { name: /^Click-through rate/ });
      for (const [name, id] of [
        ['A', 'a'],
        ['B', 'b'],
      ] as const) {
        const { ctr } = metrics.variants.find((v) => v.id === id)!;
        const row = chart.getByRole('listitem').filter({ hasText: new RegExp(`^${name}`) });
        assert.equal(
          await row.locator('.interval-figure').textContent(),
          `${percent(ctr.value)} (${percent(ctr.low)} to ${percent(ctr.high)})`,
          `${name}'s rate and interval`,
        );
      }
      const verdicts = results.getByRole('list', { name: 'What the figures of popular-first say' });
      await verdicts
        .getByText(/^B gets more clicks than A; the difference is clear \(p [<=] 0\.0\d+\)\.$/)
        .waitFor();
      await assertAccessible(page, 'the Experiments page with results');
    },
  );

  await t.test('a merchandiser follows it but is offered no change', async () => {
    const other = await signedInContext(browser, service.url, MERCHANDISER, {
      viewport: { width: 1280, height: 900 },
      bypassCSP: true,
    });
    t.after(() => other.close());
    const merchandiser = await other.newPage();
    await merchandiser.goto(`${service.url}/console/experiments?app=shop&experiment=popular-first`);
    const followed = merchandiser.getByRole('region', { name: 'Experiment popular-first' });
    await followed.getByText(/^B gets more clicks than A; the difference is clear/).waitFor();
    for (const name of ['New experiment', 'Stop', 'Delete popular-first', "Make B the profile's settings"])
      assert.equal(await merchandiser.getByRole('button', { name }).count(), 0, `no ${name} button`);
  });

  await t.test('at 390 px the page fits the window and passes axe', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await view.getByRole('heading', { name: 'Experiment popular-first' }).waitFor();
    // Measured once the shell has settled into its narrow layout (the navigation slides away).
    await eventually(
      async () => {
        const { scrollWidth, innerWidth } = (await page.evaluate(
          '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
        )) as { scrollWidth: number; innerWidth: number };
        assert.ok(scrollWidth <= innerWidth, `the page is ${scrollWidth} px wide in ${innerWidth}`);
      },
      { within: 2000, every: 100 },
    );
    await assertAccessible(page, 'the Experiments page at 390 px');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await t.test('promoting B, asked first, makes its parameter the profile’s own', async () => {
    await view.getByRole('button', { name: "Make B the profile's settings" }).click();
    const dialog = page.getByRole('dialog', { name: 'Make B the settings of the query profile "web"?' });
    await dialog.getByText('Solr parameter sort = popularity desc').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(
      ((await service.admin('GET', '/api/apps/shop/query-profiles/web')).body as { experiment?: string })
        .experiment,
      'popular-first',
      'Cancel changes nothing',
    );

    await view.getByRole('button', { name: "Make B the profile's settings" }).click();
    await dialog.getByRole('button', { name: 'Make B the settings' }).click();
    const now = view.getByRole('region', { name: 'The profile web now' });
    await now.getByText(/Solr parameters of every search: .*sort = popularity desc/).waitFor();
    await view.getByText(/B became the settings of the profile web/).waitFor();
    const profile = (await service.admin('GET', '/api/apps/shop/query-profiles/web')).body as {
      experiment?: string;
      defaults: Record<string, unknown>;
    };
    assert.equal(profile.defaults.sort, 'popularity desc');
    assert.equal(profile.experiment, undefined, 'the profile runs no experiment');
    const after = await shopperSearch('shopper-0');
    assert.equal(after.variant, undefined, 'answers name no variant');
    assert.equal(after.params.sort, 'popularity desc', 'every shopper gets B');
  });

  await t.test('deleting it, asked first, leaves the profile as promoted', async () => {
    await page.getByRole('button', { name: 'Delete popular-first' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the experiment popular-first?' });
    await dialog.getByRole('button', { name: 'Delete experiment' }).click();
    await page.getByText('No experiment in shop yet.').waitFor();
    assert.equal((await service.admin('GET', '/api/apps/shop/experiments/popular-first')).status, 404);
    const profile = (await service.admin('GET', '/api/apps/shop/query-profiles/web')).body as {
      defaults: Record<string, unknown>;
    };
    assert.equal(profile.defaults.sort, 'popularity desc');
  });
});
