// A merchandiser's first day, in a real browser, from a fresh install to a published change
// and back, against the real service (a fresh SQLite database) and the test run's real
// SolrCloud (read only): sign in, create a studio, a typeahead instance, a search cluster and
// a query profile, all in the console; schedule a banner with the date picker (the browser in
// Berlin's time zone), pin a product from the preview, see staging differ from live, publish and
// see live follow; delete a rule, confirmed, and undo it; restore an earlier version of the
// banner. One browser page walks the whole way, as a person would: each step starts where the
// last one left off.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { ADMIN, assertAccessible, freshConsoleBesideSolr, signIn } from '../helpers/console.js';

const suite = freshConsoleBesideSolr();
const { skip } = suite;

/** The titles of a preview column's product cards, in order. */
function titles(column: Locator): Promise<string[]> {
  return column
    .getByRole('list', { name: /products$/ })
    .locator(':scope > li .product-title')
    .allTextContents();
}

/** Waits until the preview column's first card is titled `title`. */
function firstIs(page: Page, column: string, title: string) {
  return page.waitForFunction(
    `document.querySelector('[aria-label="${column}"] .product-title')?.textContent === ${JSON.stringify(title)}`,
  );
}

const ZONE = 'Europe/Berlin';

/** Today's (in Berlin) or the `day` of a later month's label in the date picker's calendar ("28 November 2026"). */
function calendarDay(monthsAhead: number, day?: number): string {
  const [year, month, today] = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE })
    .format(new Date())
    .split('-')
    .map(Number) as [number, number, number];
  const at = new Date(Date.UTC(year, month - 1 + monthsAhead, day ?? today));
  const name = at.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' });
  return `${at.getUTCDate()} ${name} ${at.getUTCFullYear()}`;
}

/** Picks a day (this month or the next) and a time in the editor's date-time picker `label`. */
async function pick(page: Page, label: string, day: string, nextMonth: boolean, hours: string) {
  await page.getByRole('button', { name: `${label} (${ZONE})` }).click();
  const dropdown = page.getByRole('dialog', { name: `${label} (${ZONE})` });
  if (nextMonth) await dropdown.getByRole('button', { name: 'Next month' }).click();
  await dropdown.getByRole('button', { name: day, exact: true }).click();
  await dropdown.getByRole('spinbutton', { name: 'Hours' }).fill(hours);
  await dropdown.getByRole('spinbutton', { name: 'Minutes' }).fill('00');
  await dropdown.getByRole('button', { name: `Set the ${label.toLowerCase()}` }).press('Enter');
  await dropdown.waitFor({ state: 'detached' });
}

/** The studio's rule named `name`, through the session. */
async function ruleNamed(page: Page, name: string) {
  const answer = await page.request.get(`${suite.service.url}/studios/home-kitchen/em-rules?size=100`);
  const { content } = (await answer.json()) as {
    content: Array<{ id: string; name: string; bannerUrl?: string; conditions: Record<string, unknown> }>;
  };
  const rule = content.find((r) => r.name === name);
  assert.ok(rule, `no rule named ${name}`);
  return rule;
}

describe("a merchandiser's first day, from a fresh install", { skip }, () => {
  let page: Page;
  before(async () => {
    if (skip) return;
    const context = await suite.browser.newContext({
      viewport: { width: 1280, height: 900 },
      bypassCSP: true,
      timezoneId: ZONE,
    });
    page = await context.newPage();
  });

  test('signs in and creates a studio from the empty Rules page', async () => {
    await signIn(page, suite.service.url, ADMIN);
    await page.goto(`${suite.service.url}/console/rules`);
    await page
      .getByRole('status')
      .filter({ hasText: 'No studio yet' })
      .getByRole('link', { name: 'Create a studio' })
      .click();
    const form = page.getByRole('form', { name: 'New studio' });
    await form.getByLabel('Name', { exact: true }).fill('Home & Kitchen');
    await form.getByRole('button', { name: 'Create studio' }).click();
    await page.getByRole('cell', { name: 'home-kitchen' }).waitFor();
  });

  test('creates a typeahead instance and keeps its embed token', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Typeahead' }).click();
    await page.getByRole('button', { name: 'Create a typeahead instance' }).click();
    const form = page.getByRole('form', { name: 'New typeahead instance' });
    await form.getByLabel('Name', { exact: true }).fill('Shop');
    await form.getByRole('button', { name: 'Create instance' }).click();
    const shown = page.getByRole('region', { name: 'Typeahead instance "Shop" created.' });
    await shown.getByRole('button', { name: 'Copy the token' }).waitFor();
    assert.ok(((await shown.getByLabel('Embed token', { exact: true }).textContent()) ?? '').length > 20);
  });

  test('adds the shop’s Solr as a search cluster, its check passed', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Search clusters' })
      .click();
    await page.getByRole('button', { name: 'Add a search cluster' }).click();
    const form = page.getByRole('form', { name: 'New search cluster' });
    await form.getByLabel('Short id').fill('catalog');
    await form.getByLabel('ZooKeeper address (with chroot)').fill(suite.solr.zk);
    await form.getByLabel('User name', { exact: true }).fill(suite.solr.credentials.username);
    await form.getByLabel('Password', { exact: true }).fill(suite.solr.credentials.password);
    await form.getByRole('button', { name: 'Add cluster' }).click();
    await page
      .getByRole('region', { name: 'Check of catalog' })
      .getByText('Every step passed')
      .waitFor({ timeout: 30_000 });
  });

  test('creates a query profile over the products, with product cards', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Query profiles' })
      .click();
    await page.goto(`${suite.service.url}/console/query-profiles?app=shop&edit=new`);
    const form = page.getByRole('form', { name: 'New query profile' });
    await form.getByLabel('Profile id').fill('web');
    await form.getByLabel('Search cluster').selectOption('catalog');
    // The cluster is asked for its collections, which the field offers.
    await form.getByText(new RegExp(`^In catalog: .*\\b${suite.solr.collection}\\b`)).waitFor();
    await form.getByLabel('Collection').fill(suite.solr.collection);
    await form.getByLabel('Studio (rules and rewrites)').selectOption('home-kitchen');
    await form.getByLabel('Typeahead instance (search logging)').selectOption('shop');
    // The id breaks ties of score, so that live and staging order equal products alike.
    await form
      .getByLabel('Default Solr parameters (name=value, one a line)')
      .fill('rows=10\nfl=id,name,brand,price\nsort=score desc,id asc');
    await form.getByLabel('Title field (empty: name, else title)').fill('name');
    await form.getByLabel('Price field (empty: price)').fill('price');
    await form.getByRole('button', { name: 'Save profile' }).click();
    await form.waitFor({ state: 'detached' });
    await assertAccessible(page, 'the new profile');
  });

  // Nothing answers there: the preview draws the banner as a frame naming its address.
  const BANNER = 'http://127.0.0.1:9/kettle-week.png';
  test('schedules a banner with the date picker, from today until the 20th of next month', async () => {
    await page.goto(`${suite.service.url}/console/rules/new?studio=home-kitchen`);
    const name = page.getByLabel('Name', { exact: true });
    await page.getByLabel('Type').selectOption({ label: 'Banner' });
    await name.fill('Kettle week');
    await page.getByLabel('Banner URL').fill(BANNER);
    const queries = page.getByRole('combobox', { name: 'Queries', exact: true });
    await queries.fill('kettle');
    await queries.press('Enter');
    await pick(page, 'Start', calendarDay(0), false, '00');
    await pick(page, 'End', calendarDay(1, 20), true, '18');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved Kettle week' }).waitFor();
    const stored = await ruleNamed(page, 'Kettle week');
    const start = new Date(String(stored.conditions.effectiveStart));
    // Midnight in Berlin, stored as the UTC instant it is.
    assert.equal(
      start.toLocaleString('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hour12: false }),
      '00:00',
    );
    assert.ok(start.getTime() <= Date.now(), 'the banner has started');
    assert.ok(Date.parse(String(stored.conditions.effectiveEnd)) > Date.now(), 'and not ended');
  });

  let original: string[] = [];
  let pinned = '';
  test('pins a product from the preview: staging shows it first, live does not', async () => {
    await page.goto(`${suite.service.url}/console/query-profiles?app=shop&profile=web`);
    const workbench = page.getByRole('region', { name: 'Workbench of web' });
    await workbench.getByLabel("Shopper's query").fill('kettle');
    await workbench.getByRole('button', { name: 'Send query' }).click();
    const live = workbench.getByRole('region', { name: 'Live results' });
    const staging = workbench.getByRole('region', { name: 'Staging results' });
    await live.getByRole('listitem').first().waitFor();
    original = await titles(live);
    assert.equal(original.length, 10);
    pinned = original[3]!;
    await live.getByRole('button', { name: `Pin here: ${pinned}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `“${pinned}” now comes first for “kettle”` })
      .waitFor();
    await firstIs(page, 'Staging results', pinned);
    assert.equal((await titles(live))[0], original[0], 'live is as it was');
    assert.notDeepEqual(await titles(staging), await titles(live), 'staging and live differ');
    // The scheduled banner, a draft yet, is drawn in staging only.
    await staging.getByRole('figure').filter({ hasText: '“Kettle week”, top zone' }).waitFor();
    assert.equal(await live.getByRole('figure').count(), 0, 'no banner live');
  });

  test('publishes the pin from the Rules page: live shows the product first too', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Rules' }).click();
    for (const rule of ['Pinned for: kettle', 'Kettle week']) {
      await page.getByRole('button', { name: `Publish ${rule}`, exact: true }).click();
      await page.getByRole('button', { name: `Unpublish ${rule}` }).waitFor();
    }
    const answer = await suite.service.admin('GET', '/api/apps/shop/query/web?q=kettle');
    const docs = (answer.body as { response: { docs: { name: string }[] } }).response.docs;
    assert.equal(docs[0]?.name, pinned, 'the shop sees the pin');
    const banners = (answer.body as { fusion: { banners: { url: string }[] } }).fusion.banners;
    assert.deepEqual(
      banners.map((b) => b.url),
      [BANNER],
      'and the banner',
    );

    await page.goto(`${suite.service.url}/console/query-profiles?app=shop&profile=web`);
    const workbench = page.getByRole('region', { name: 'Workbench of web' });
    await workbench.getByLabel("Shopper's query").fill('kettle');
    await workbench.getByRole('button', { name: 'Send query' }).click();
    await firstIs(page, 'Live results', pinned);
    const live = workbench.getByRole('region', { name: 'Live results' });
    await live
      .getByRole('listitem')
      .filter({ hasText: pinned })
      .first()
      .getByText('Pinned at position 1 by “Pinned for: kettle”')
      .waitFor();
  });

  test('deletes the pin, confirmed twice (the delete, then its publishing), and Undo brings it back live', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Rules' }).click();
    await page.getByRole('button', { name: 'Delete Pinned for: kettle' }).click();
    const asked = page.getByRole('dialog', { name: /^Delete .*Pinned for: kettle.*\?$/ });
    await asked.getByText('once the deletion is published').waitFor();
    await asked.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Publish the deletion of Pinned for: kettle' }).click();
    const publish = page.getByRole('dialog', { name: /^Publish the deletion of/ });
    await publish.getByRole('button', { name: 'Publish deletion' }).click();
    const toast = page.getByRole('status').filter({ hasText: 'from the live site' });
    await toast.waitFor();
    const first = async () =>
      (
        (await suite.service.admin('GET', '/api/apps/shop/query/web?q=kettle')).body as {
          response: { docs: { name: string }[] };
        }
      ).response.docs[0]?.name;
    assert.equal(await first(), original[0], 'the shop no longer sees the pin');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('status').filter({ hasText: 'is live again' }).waitFor();
    assert.equal(await first(), pinned, 'the pin is live again');
  });

  test('restores the banner to an earlier version from its Versions list', async () => {
    const { id } = await ruleNamed(page, 'Kettle week');
    await page.goto(`${suite.service.url}/console/rules/${id}?studio=home-kitchen`);
    await page.getByLabel('Banner URL').fill(`${BANNER}?v=2`);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved Kettle week' }).waitFor();
    assert.equal((await ruleNamed(page, 'Kettle week')).bannerUrl, `${BANNER}?v=2`);

    const versions = page.getByRole('region', { name: 'Versions' });
    await versions
      .getByRole('row')
      .filter({ hasText: 'Created' })
      .getByRole('button', { name: /Restore this version/ })
      .click();
    await page
      .getByRole('dialog', { name: /^Restore the version of / })
      .getByRole('button', { name: 'Restore', exact: true })
      .click();
    await page
      .getByRole('status')
      .filter({ hasText: /Restored the version of/ })
      .waitFor();
    assert.equal((await ruleNamed(page, 'Kettle week')).bannerUrl, BANNER, 'the first version is back');
    await versions.getByRole('row').filter({ hasText: 'Restored an earlier version:' }).waitFor();
    await assertAccessible(page, 'the rule with its versions');
  });
});
