// Setting searchdeck up in the console alone, in a real browser against the real service on a
// fresh SQLite database and the project's real SolrCloud: an admin signs in to an empty
// install, creates a studio from the Rules page's empty state, renames and deletes one (asked
// first) and is told why a studio a query profile uses is not deleted, adds a search cluster
// whose check's steps are listed as passed, sees a wrong Solr password refused with the failed
// step in plain words, and keeps the stored password when editing. Each form fits a phone's 390 px and has no serious or critical axe violation.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, assertAccessible, freshConsoleBesideSolr, signIn } from '../helpers/console.js';

const suite = freshConsoleBesideSolr();
const { skip } = suite;

/** Whether the page is wider than the window (it would scroll sideways). */
async function assertFits(page: Page, what: string): Promise<void> {
  const { scrollWidth, innerWidth } = (await page.evaluate(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  )) as { scrollWidth: number; innerWidth: number };
  assert.ok(
    scrollWidth <= innerWidth,
    `${what}: the page is ${scrollWidth} px wide in a ${innerWidth} px window`,
  );
}

/** The form at 1280 and 390 px: it fits and is accessible (and is photographed when asked). */
async function assertFormWorks(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    // Once the navigation has slid out of a phone's window (or into a desktop's).
    await page.waitForFunction(
      `document.getElementById('main-navigation').getBoundingClientRect().${width === 390 ? 'right <= 0' : 'left >= 0'}`,
    );
    await assertFits(page, `${name} at ${width} px`);
    await assertAccessible(page, `${name} at ${width} px`);
    // CONSOLE_SCREENSHOTS=<dir> keeps a picture of each form, to look at.
    const dir = process.env.CONSOLE_SCREENSHOTS;
    if (dir) {
      mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: join(dir, `${name.replaceAll(' ', '-')}-${width}.png`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** Whether the focused element is the one labelled `label`. */
async function focusedLabel(page: Page): Promise<string> {
  return (await page.evaluate(
    "document.activeElement?.labels?.[0]?.textContent ?? document.activeElement?.getAttribute('aria-label') ?? ''",
  )) as string;
}

describe('setting up in the console', { skip }, () => {
  let page: Page;
  before(async () => {
    if (skip) return;
    const context = await suite.browser.newContext({
      viewport: { width: 1280, height: 800 },
      bypassCSP: true,
    });
    page = await context.newPage();
    await signIn(page, suite.service.url, ADMIN);
  });

  test('a fresh install offers to create a studio, which is created, renamed and deleted', async () => {
    await page.goto(`${suite.service.url}/console/rules`);
    const empty = page.getByRole('status').filter({ hasText: 'No studio yet' });
    await empty.getByText('A studio holds the rules and rewrites').waitFor();
    assert.equal(await page.getByText('POST /api/studios').count(), 0, 'no curl hint');
    await empty.getByRole('link', { name: 'Create a studio' }).click();

    const form = page.getByRole('form', { name: 'New studio' });
    await form.waitFor();
    assert.equal(await focusedLabel(page), 'Name', 'the first field has the focus');
    await page.getByLabel('Name', { exact: true }).fill('Shop (English)');
    assert.equal(await page.getByLabel('Short id').inputValue(), 'shop-english', 'the id follows the name');
    await assertFormWorks(page, 'new studio');
    await form.getByRole('button', { name: 'Create studio' }).click();
    await page.getByRole('cell', { name: 'shop-english' }).waitFor();
    assert.deepEqual((await suite.service.admin('GET', '/api/studios/shop-english')).body, {
      id: 'shop-english',
      name: 'Shop (English)',
      syncTargets: [],
      createdAt: (
        (await suite.service.admin('GET', '/api/studios/shop-english')).body as { createdAt: string }
      ).createdAt,
    });

    // A taken id: the API's message, beside the field.
    await page.getByRole('button', { name: 'Create a studio' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Shop English');
    await page.getByLabel('Short id').fill('shop-english');
    await page.getByRole('button', { name: 'Create studio' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /exists/ })
      .waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Rename Shop (English)' }).click();
    const rename = page.getByRole('form', { name: 'Rename the studio "Shop (English)"' });
    assert.equal(await focusedLabel(page), 'Name');
    await rename.getByLabel('Name', { exact: true }).fill('Shop in English');
    await rename.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('link', { name: 'Shop in English' }).waitFor();

    // The Rules page now opens the studio.
    await page.getByRole('link', { name: 'Shop in English' }).click();
    await page.getByRole('heading', { name: 'Rules' }).waitFor();
    assert.equal(await page.getByLabel('Studio').inputValue(), 'shop-english');

    await suite.service.admin('POST', '/api/studios', { id: 'old', name: 'Old shop' });
    await page.goto(`${suite.service.url}/console/studios`);
    await page.getByRole('button', { name: 'Delete Old shop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the studio "Old shop"?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await suite.service.admin('GET', '/api/studios/old')).status, 200, 'cancel keeps it');
    await page.getByRole('button', { name: 'Delete Old shop' }).click();
    await dialog.getByRole('button', { name: 'Delete studio' }).click();
    await page.getByRole('button', { name: 'Delete Old shop' }).waitFor({ state: 'detached' });
    assert.equal((await suite.service.admin('GET', '/api/studios/old')).status, 404);

    // A studio a query profile uses is not deleted: the answer names the profile, and no second
    // question offers to force it (forcing would not help).
    const ok = (answer: { status: number; body: unknown }) =>
      assert.ok(answer.status < 300, JSON.stringify(answer.body));
    ok(await suite.service.admin('POST', '/api/studios', { id: 'used', name: 'Used shop' }));
    try {
      ok(
        await suite.service.admin('POST', '/api/apps/shop/searchCluster', {
          id: 'parked',
          connectString: 'http://127.0.0.1:1/solr',
          cloud: false,
        }),
      );
      ok(
        await suite.service.admin('PUT', '/api/apps/shop/query-profiles/main', {
          searchCluster: 'parked',
          collection: 'products',
          studio: 'used',
        }),
      );
      await page.goto(`${suite.service.url}/console/studios`);
      await page.getByRole('button', { name: 'Delete Used shop' }).click();
      await page
        .getByRole('dialog', { name: 'Delete the studio "Used shop"?' })
        .getByRole('button', { name: 'Delete studio' })
        .click();
      // Before, the page took any 409 for rules left in the studio and asked to force it.
      await page
        .getByRole('alert')
        .filter({ hasText: 'studio used is used by query profile shop/main; change that first' })
        .waitFor();
      assert.equal(await page.getByRole('dialog', { name: /still has rules/ }).count(), 0);
      assert.equal((await suite.service.admin('GET', '/api/studios/used')).status, 200);
    } finally {
      // Put back as it was: the next tests start from an install without clusters.
      await suite.service.admin('DELETE', '/api/apps/shop/query-profiles/main');
      await suite.service.admin('DELETE', '/api/apps/shop/searchCluster/parked');
      await suite.service.admin('DELETE', '/api/studios/used');
    }
  });

  test('a search cluster on the real Solr is added with its check passed, step by step', async () => {
    await page.goto(`${suite.service.url}/console/clusters`);
    await page.getByRole('status').filter({ hasText: 'No search cluster yet' }).waitFor();
    await page.getByRole('button', { name: 'Add a search cluster' }).click();
    const form = page.getByRole('form', { name: 'New search cluster' });
    await form.waitFor();
    assert.equal(await focusedLabel(page), 'Short id', 'the first field has the focus');
    await form.getByLabel('Short id').fill('catalog');
    await form.getByLabel('ZooKeeper address (with chroot)').fill(suite.solr.zk);
    await form.getByLabel('User name', { exact: true }).fill(suite.solr.credentials.username);
    await form.getByLabel('Password', { exact: true }).fill(suite.solr.credentials.password);
    await assertFormWorks(page, 'new search cluster');
    await form.getByRole('button', { name: 'Add cluster' }).click();

    const check = page.getByRole('region', { name: 'Check of catalog' });
    await check.getByText('Every step passed').waitFor({ timeout: 30_000 });
    const steps = await check.getByRole('listitem').allInnerTexts();
    assert.deepEqual(
      steps.map((s) =>
        s
          .split('\n')
          .find((line) => line.includes(':'))
          ?.replace(/^[✓✗]\s*/, ''),
      ),
      [
        'ZooKeeper answers at this address: passed',
        'ZooKeeper holds a SolrCloud under this path: passed',
        'Solr servers are running in the cluster: passed',
        'A Solr server answers and accepts the user name and password: passed',
      ],
    );
    const stored = (await suite.service.admin('GET', '/api/searchCluster/catalog')).body as Record<
      string,
      unknown
    >;
    assert.equal(stored.connectString, suite.solr.zk);
    assert.deepEqual(stored.authConfig, { authType: 'BASIC', username: 'solr', password: '********' });
    assert.equal(
      await page.getByText(suite.solr.credentials.password).count(),
      0,
      'the password is never shown',
    );
    await assertFormWorks(page, 'search cluster checked');
  });

  test('a wrong Solr password is refused with the failed step in plain words, nothing stored', async () => {
    await page.goto(`${suite.service.url}/console/clusters?new=1`);
    const form = page.getByRole('form', { name: 'New search cluster' });
    await form.getByLabel('Short id').fill('wrong');
    await form.getByLabel('ZooKeeper address (with chroot)').fill(suite.solr.zk);
    await form.getByLabel('User name', { exact: true }).fill(suite.solr.credentials.username);
    await form.getByLabel('Password', { exact: true }).fill('not-the-password');
    await form.getByRole('button', { name: 'Add cluster' }).click();
    const alert = form.getByRole('alert');
    await alert.getByText('A Solr server answers and accepts the user name and password: failed').waitFor({
      timeout: 30_000,
    });
    assert.match(
      (await alert.textContent()) ?? '',
      /The check failed: Solr refused the user name and password\. Nothing was saved\./,
    );
    assert.match((await alert.textContent()) ?? '', /check the username and password/);
    assert.match((await alert.textContent()) ?? '', /ZooKeeper answers at this address: passed/);
    assert.equal(
      (await suite.service.admin('GET', '/api/searchCluster/wrong')).status,
      404,
      'nothing stored',
    );
    await assertFormWorks(page, 'search cluster refused');
  });

  test('a single Solr server is added by its URL, with its one step passed', async () => {
    await page.goto(`${suite.service.url}/console/clusters?new=1`);
    const form = page.getByRole('form', { name: 'New search cluster' });
    await form.getByLabel('Short id').fill('node1');
    await form.getByLabel('A single Solr server').check();
    await form.getByLabel('Solr address').fill(suite.solr.url);
    await form.getByLabel('User name', { exact: true }).fill(suite.solr.credentials.username);
    await form.getByLabel('Password', { exact: true }).fill(suite.solr.credentials.password);
    await form.getByRole('button', { name: 'Add cluster' }).click();
    const check = page.getByRole('region', { name: 'Check of node1' });
    await check.getByText('Every step passed').waitFor({ timeout: 30_000 });
    assert.equal(await check.getByRole('listitem').count(), 1);
    await check.getByText('A Solr server answers and accepts the user name and password: passed').waitFor();
    const stored = (await suite.service.admin('GET', '/api/searchCluster/node1')).body as Record<
      string,
      unknown
    >;
    assert.equal(stored.cloud, false);
    assert.equal(stored.connectString, suite.solr.url);
  });

  test('editing a search cluster keeps the stored password when its field is left empty', async () => {
    await page.goto(`${suite.service.url}/console/clusters`);
    await page.getByRole('button', { name: 'Edit catalog' }).click();
    const form = page.getByRole('form', { name: 'Edit the search cluster "catalog"' });
    assert.equal(
      await form.getByLabel('Password', { exact: true }).inputValue(),
      '',
      'the password is not shown',
    );
    await form.getByText('Leave empty to keep the stored password').waitFor();
    assert.equal(await form.getByLabel('ZooKeeper address (with chroot)').inputValue(), suite.solr.zk);
    await form.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('region', { name: 'Check of catalog' })
      .getByText('Every step passed')
      .waitFor({ timeout: 30_000 });

    await page.getByRole('button', { name: 'Delete catalog' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the search cluster "catalog"?' })
      .getByRole('button', { name: 'Delete cluster' })
      .click();
    await page.getByRole('button', { name: 'Delete catalog' }).waitFor({ state: 'detached' });
    assert.equal((await suite.service.admin('GET', '/api/searchCluster/catalog')).status, 404);
  });
  test('a typeahead instance is created with its embed token shown once, which works until replaced', async () => {
    await page.goto(`${suite.service.url}/console/typeahead`);
    await page.getByRole('button', { name: 'Create a typeahead instance' }).click();
    const form = page.getByRole('form', { name: 'New typeahead instance' });
    assert.equal(await focusedLabel(page), 'Name', 'the first field has the focus');
    await form.getByLabel('Name', { exact: true }).fill('Shop (English)');
    assert.equal(await form.getByLabel('Short id').inputValue(), 'shop-english');
    await form.getByLabel('Websites allowed to ask').fill('https://shop.example.com');
    await assertFormWorks(page, 'new typeahead instance');
    await form.getByRole('button', { name: 'Create instance' }).click();

    const shown = page.getByRole('region', { name: 'Typeahead instance "Shop (English)" created.' });
    await shown.getByText('it is not shown again').waitFor();
    await shown.getByRole('button', { name: 'Copy the token' }).waitFor();
    const token = (await shown.getByLabel('Embed token', { exact: true }).textContent()) ?? '';
    const suggest = (t: string) =>
      fetch(`${suite.service.url}/typeahead/suggestions?prefix=a`, {
        headers: { authorization: `Embed ${t}`, host: 'shop-english.localhost' },
      });
    assert.equal((await suggest(token)).status, 200, 'the token shown works');
    const stored = (await suite.service.admin('GET', '/api/typeahead/instances/shop-english')).body as {
      allowedOrigins: string[];
    };
    assert.deepEqual(stored.allowedOrigins, ['https://shop.example.com']);
    await assertFormWorks(page, 'typeahead token shown');
    await page.reload();
    await page.getByRole('button', { name: 'Edit Shop (English)' }).waitFor();
    assert.equal(
      await page.getByLabel('Embed token', { exact: true }).count(),
      0,
      'the token is not shown again',
    );

    await page.getByRole('button', { name: 'Edit Shop (English)' }).click();
    const edit = page.getByRole('form', { name: 'Edit the typeahead instance "Shop (English)"' });
    await edit.getByLabel('Most searched over (days)').fill('14');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: '14', exact: true }).waitFor();

    await page.getByRole('button', { name: 'New embed token for Shop (English)' }).click();
    await page
      .getByRole('dialog', { name: 'Issue a new embed token for "Shop (English)"?' })
      .getByRole('button', { name: 'Issue new token' })
      .click();
    const renewed = page.getByRole('region', { name: 'New embed token of "Shop (English)".' });
    const next = (await renewed.getByLabel('Embed token', { exact: true }).textContent()) ?? '';
    assert.notEqual(next, token);
    assert.equal((await suggest(next)).status, 200, 'the new token works');
    assert.equal((await suggest(token)).status, 200, 'the old one too, for an hour');
  });

  test("an API client's secret is shown once, with a Copy button, and gets tokens", async () => {
    await page.goto(`${suite.service.url}/console/api-clients?studio=shop-english`);
    await page.getByRole('button', { name: 'New API client' }).click();
    assert.equal(await focusedLabel(page), 'Client name', 'the first field has the focus');
    await page.getByLabel('Client name').fill('feed importer');
    await assertFormWorks(page, 'new API client');
    await page.getByRole('button', { name: 'Create client' }).click();
    const shown = page.getByRole('region', { name: 'API client "feed importer" created.' });
    await shown.getByText('it is not shown again').waitFor();
    await shown.getByRole('button', { name: 'Copy the secret' }).waitFor();
    const clientId = (await shown.getByLabel('Client id').textContent()) ?? '';
    const secret = (await shown.getByLabel('Client secret').textContent()) ?? '';
    const token = await fetch(`${suite.service.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
      }),
    });
    assert.equal(token.status, 200, await token.text());
    await assertFormWorks(page, 'API client secret shown');
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.getByLabel('Client secret').count(), 0, 'the secret is gone');
  });
  test('a query profile uses a search cluster added outside any app, and finds products in the real Solr', async () => {
    const cluster = await suite.service.admin('POST', '/api/searchCluster', {
      id: 'solr',
      connectString: suite.solr.zk,
      authConfig: { authType: 'BASIC', ...suite.solr.credentials },
    });
    assert.equal(cluster.status, 200, JSON.stringify(cluster.body));
    await page.goto(`${suite.service.url}/console/query-profiles?app=shop&edit=new`);
    const form = page.getByRole('form', { name: 'New query profile' });
    await form.waitFor();
    assert.equal(await focusedLabel(page), 'Profile id', 'the first field has the focus');
    await form.getByLabel('Profile id').fill('web');
    await form.getByLabel('Search cluster').selectOption('solr');
    await form.getByLabel('Collection').fill(suite.solr.collection);
    await form.getByLabel('Studio (rules and rewrites)').selectOption('shop-english');
    await form.getByRole('button', { name: 'Save profile' }).click();
    await form.waitFor({ state: 'detached' });
    const profile = await suite.service.admin('GET', '/api/apps/shop/query-profiles/web');
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    const found = await suite.service.admin('GET', '/api/apps/shop/query/web?q=kettle');
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.ok((found.body as { response: { numFound: number } }).response.numFound > 0);
  });
  test('a viewer sees studios, clusters and instances but no button that would change them', async () => {
    const viewer = { username: 'vera', password: 'vera-password-1' };
    assert.equal(
      (await suite.service.admin('POST', '/api/users', { ...viewer, role: 'viewer' })).status,
      201,
    );
    const context = await suite.browser.newContext({
      viewport: { width: 390, height: 844 },
      bypassCSP: true,
    });
    const other = await context.newPage();
    try {
      await signIn(other, suite.service.url, viewer);
      for (const [path, button] of [
        ['/studios', 'Create a studio'],
        ['/clusters', 'Add a search cluster'],
        ['/typeahead', 'Create a typeahead instance'],
      ] as const) {
        await other.goto(`${suite.service.url}/console${path}`);
        await other.getByRole('heading', { level: 1 }).waitFor();
        await other.waitForFunction("document.querySelector('[data-loading]') === null");
        assert.equal(await other.getByRole('button', { name: button }).count(), 0, `${path}: ${button}`);
        assert.equal(await other.getByRole('button', { name: /^(Delete|Edit|Rename) / }).count(), 0, path);
      }
      // Even on ?new=1 the form is not there.
      await other.goto(`${suite.service.url}/console/clusters?new=1`);
      await other.getByRole('heading', { level: 1 }).waitFor();
      assert.equal(await other.getByRole('form', { name: 'New search cluster' }).count(), 0);
    } finally {
      await context.close();
    }
  });
});
