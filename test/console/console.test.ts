// The console in a real browser (Debian's Chromium through playwright-core) against the real
// service on SQLite: sign in, a merchandiser's rule from creation to the filtered list, the
// typeahead terms and their preview, a link drawn by the object explorer, the cluster
// check's steps, sign out; axe-core finds no serious or critical violation on those pages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  ADMIN,
  assertAccessible,
  browserSkipReason,
  MERCHANDISER,
  seededConsole,
  signIn as signInAt,
} from '../helpers/console.js';

const skip = browserSkipReason();

const suite = seededConsole();

const signIn = (page: Page, who: { username: string; password: string }) =>
  signInAt(page, suite.service.url, who);

test('the console, signed in, does the everyday tasks in a browser', { skip }, async (t) => {
  // bypassCSP: axe-core is injected as an inline script, which the console's policy forbids.
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  const page = await context.newPage();
  t.after(() => context.close());
  const who = suite.usersExist ? MERCHANDISER : ADMIN;

  await t.test('the sign-in page is accessible and signs in', async () => {
    await page.goto(`${suite.service.url}/console`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await assertAccessible(page, 'sign-in');
    await signIn(page, who);
    for (const name of [
      'Rules',
      'Rewrites',
      'Studios',
      'Typeahead',
      'Objects',
      'Search clusters',
      'Query profiles',
      'Users',
      'History',
    ]) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).waitFor();
    }
  });

  await t.test('a rule is created, edited, published and found in the filtered list', async () => {
    await page.getByRole('link', { name: 'Rules', exact: true }).click();
    await page.getByRole('button', { name: 'New rule' }).click();
    // The API's message shows beside the field it is about.
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#name-error').waitFor();
    // The type's own fields are inputs too, with their messages beside them.
    await page.locator('#fieldValues-error').waitFor();
    assert.equal(await page.getByLabel('Values (one a line)').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Name', { exact: true }).fill('Block P1');
    await page.getByLabel('Values (one a line)').fill('P1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved Block P1' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Block P1 and P2');
    await page.getByLabel('Values (one a line)').fill('P1\nP2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved Block P1 and P2' }).waitFor();
    await assertAccessible(page, 'rule editor');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('status').filter({ hasText: 'Published' }).waitFor();
    await page.getByRole('link', { name: 'Back to the list' }).click();
    await page.getByLabel('State').selectOption('PUBLISHED');
    await page.getByLabel('Type').selectOption('blockList');
    assert.match(page.url(), /publishState=PUBLISHED/);
    assert.match(page.url(), /types=blockList/);
    const row = page.getByRole('row').filter({ hasText: 'Block P1 and P2' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Block list\s*Published/);
    // The URL keeps the view: reloading it shows the same filtered list.
    await page.reload();
    await page.getByRole('row').filter({ hasText: 'Block P1 and P2' }).waitFor();
    await page.getByLabel('Query', { exact: true }).fill('kettle');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    await page.getByRole('table', { name: 'Rules that fired' }).getByText('Block P1 and P2').waitFor();
    await assertAccessible(page, 'rules listing');
  });

  await t.test('a selection of rules is published in bulk with its progress', async () => {
    const { csrfToken } = (await (await page.request.get(`${suite.service.url}/api/session`)).json()) as {
      csrfToken: string;
    };
    for (const name of ['Bury P7', 'Bury P8']) {
      const made = await page.request.post(`${suite.service.url}/studios/shop/em-rules`, {
        headers: { 'x-csrf-token': csrfToken },
        data: { type: 'buryList', name, fieldName: 'id', fieldValues: [name.slice(5)], boost: 5 },
      });
      assert.equal(made.status(), 201, await made.text());
    }
    await page.goto(`${suite.service.url}/console/rules?studio=shop&publishState=DRAFT`);
    await page.getByRole('checkbox', { name: 'Select Bury P7' }).check();
    await page.getByRole('checkbox', { name: 'Select Bury P8' }).check();
    await page.getByRole('button', { name: 'Publish selected (2)' }).click();
    await page.getByText(/Bulk publish: done, 2 published, 0 failed of 2/).waitFor();
    await page.getByText('No rules match these filters.').waitFor();
    await assertAccessible(page, 'bulk publish');
  });

  await t.test('a rewrite is created, published and listed', async () => {
    await page.getByRole('link', { name: 'Rewrites', exact: true }).click();
    await page.getByRole('button', { name: 'New rewrite' }).click();
    // A check across a type's fields: the message shows beside the field it names.
    await page.getByLabel('Type').selectOption('misspelling');
    await page.getByLabel('Misspelling').fill('ketle');
    await page.getByLabel('Correction').fill('Ketle');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .locator('#correction-error')
      .getByText('The correction must be another word than the misspelling.')
      .waitFor();
    await page.getByLabel('Type').selectOption('synonym');
    await page.getByLabel('Synonyms (one a line)').fill('sofa\ncouch');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved sofa, couch' }).waitFor();
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('status').filter({ hasText: 'Published' }).waitFor();
    await page.getByRole('link', { name: 'Back to the list' }).click();
    await page
      .getByRole('row')
      .filter({ hasText: /sofa, couch\s*Synonyms\s*Published/ })
      .waitFor();
    await assertAccessible(page, 'rewrites listing');
  });

  await t.test(
    "a rewrite's row deletes, restores and unpublishes it; a refused listing says why",
    async () => {
      const row = page.getByRole('row').filter({ hasText: 'sofa, couch' });
      // Each asked first in a dialog that names the rewrite.
      await row.getByRole('button', { name: 'Delete sofa, couch' }).click();
      await page
        .getByRole('dialog', { name: 'Delete the synonyms rewrite "sofa, couch"?' })
        .getByRole('button', { name: 'Delete', exact: true })
        .click();
      await row.getByRole('button', { name: 'Restore sofa, couch' }).click();
      await row.getByRole('button', { name: 'Delete sofa, couch' }).waitFor();
      await row.getByRole('button', { name: 'Unpublish sofa, couch' }).click();
      await page
        .getByRole('dialog', { name: 'Unpublish the synonyms rewrite "sofa, couch"?' })
        .getByRole('button', { name: 'Unpublish', exact: true })
        .click();
      await row.getByRole('button', { name: 'Publish sofa, couch', exact: true }).waitFor();
      // The rewrites have no name to sort by: the API refuses, and its message is shown.
      await page.getByLabel('Sort').selectOption('name,asc');
      await page.getByRole('alert').filter({ hasText: /sort/ }).waitFor();
    },
  );

  await t.test(
    'a merchandiser sees only their own studios',
    { skip: !suite.usersExist && 'users are not there yet' },
    async () => {
      await page.getByRole('link', { name: 'Rules', exact: true }).click();
      const studios = await page.getByLabel('Studio').locator('option').allInnerTexts();
      assert.deepEqual(studios, ['shop']);
      const other = await page.request.get(`${suite.service.url}/studios/outlet/em-rules`);
      assert.equal(other.status(), 403);
    },
  );

  await t.test('typeahead terms are edited, the preview shows them, the chart counts searches', async () => {
    const logged = await suite.service.admin('POST', '/api/typeahead/instances/shop-en/search-logs', [
      { query: 'kettle', count: 4 },
      { query: 'toaster' },
    ]);
    assert.equal(logged.status, 202, JSON.stringify(logged));
    await page.getByRole('link', { name: 'Typeahead', exact: true }).click();
    const included = page.getByLabel('Included terms (one per line)');
    await included.waitFor();
    await included.fill('Elastic band\nElectric kettle');
    await page.getByRole('button', { name: 'Save terms' }).click();
    await page.getByRole('status').filter({ hasText: 'Terms saved' }).waitFor();
    await page.getByLabel('Preview suggestions').fill('ele');
    await page.getByRole('list', { name: 'Suggestions' }).getByText('Electric kettle').waitFor();
    const chart = page.getByRole('img', { name: /^Searches per hour, last 7 days: 5 in all; busiest hour/ });
    await chart.waitFor();
    assert.ok((await chart.locator('canvas').count()) > 0, 'the chart is drawn');
    await page.getByLabel('Range').selectOption({ label: 'last 24 hours' });
    await page.getByRole('img', { name: /^Searches per hour, last 24 hours: 5 in all/ }).waitFor();
    await assertAccessible(page, 'typeahead');
  });

  await t.test('the object explorer draws a link added through the API', async () => {
    const added = await suite.service.admin('PUT', '/api/links', {
      subject: 'app:shop',
      object: 'search-cluster:products',
      linkType: 'dependsOn',
    });
    assert.ok(added.status < 300, JSON.stringify(added));
    await page.getByRole('link', { name: 'Objects', exact: true }).click();
    await page.getByLabel('Object', { exact: true }).fill('app:shop');
    await page.getByRole('button', { name: 'Show' }).click();
    const graph = page.getByRole('img', { name: /app:shop dependsOn search-cluster:products/ });
    await graph.waitFor();
    assert.ok((await graph.locator('canvas').count()) > 0, 'the graph is drawn');
    await page
      .getByRole('row')
      .filter({ hasText: /app:shop\s*dependsOn\s*search-cluster:products/ })
      .waitFor();
    await assertAccessible(page, 'objects');
  });

  await t.test('the cluster check shows its steps with timings', async () => {
    await page.getByRole('link', { name: 'Search clusters', exact: true }).click();
    await page.getByRole('button', { name: 'Check products' }).click();
    const steps = page.getByRole('region', { name: 'Check of products' });
    await steps.getByText('ZooKeeper answers at this address: failed').waitFor({ timeout: 30_000 });
    await steps
      .getByText('The check failed: searchdeck could not reach ZooKeeper at this address.')
      .waitFor();
    await steps.getByText(/\(\d+ ms\)$/).waitFor();
    // No ZooKeeper there: the nodes' answer is the API's message, shown in place.
    await page.getByRole('button', { name: 'Live nodes of products' }).click();
    await page
      .getByRole('region', { name: 'Nodes of products' })
      .getByRole('alert')
      .waitFor({ timeout: 30_000 });
    await assertAccessible(page, 'search clusters');
  });

  await t.test('the query profiles page opens without an app named', async () => {
    for (const name of ['Query profiles']) {
      await page.getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
    }
    await assertAccessible(page, 'query profiles, no app named');
  });

  await t.test(
    'an admin manages users and reads the history; others are told they cannot manage users',
    async () => {
      await page.getByRole('link', { name: 'Users', exact: true }).click();
      if (suite.usersExist) await page.getByText('Only an admin manages users.').waitFor();
      await context.clearCookies();
      await signIn(page, ADMIN);
      await page.getByRole('link', { name: 'Users', exact: true }).click();
      await page.getByLabel('New username').fill('vera');
      await page.getByLabel("New user's password").fill('vera-password-1');
      await page.getByLabel('Role').selectOption('viewer');
      await page.getByRole('button', { name: 'Create user' }).click();
      await page
        .getByRole('row')
        .filter({ hasText: /vera\s*viewer/ })
        .waitFor();
      await assertAccessible(page, 'users');
      // The history shows the merchandiser's changes made through the console.
      await page.getByRole('link', { name: 'History', exact: true }).click();
      // Who is typed as a person's name; a rule is named by its name.
      await page.getByLabel('Who').fill(MERCHANDISER.username);
      await page
        .getByRole('row')
        .filter({ hasText: new RegExp(`${MERCHANDISER.username}\\s*Published\\s*Rule "Block P1 and P2"`) })
        .first()
        .waitFor();
      assert.match(page.url(), /actor=user%3Amira/);
      await assertAccessible(page, 'history');
    },
  );

  await t.test('a viewer is offered no change', async () => {
    await context.clearCookies();
    await signIn(page, { username: 'vera', password: 'vera-password-1' });
    await page.goto(`${suite.service.url}/console/rules?studio=shop`);
    await page.getByRole('row').filter({ hasText: 'Block P1 and P2' }).waitFor();
    for (const name of ['New rule', 'Publish selected (0)', /^Unpublish /, /^Delete /]) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, String(name));
    }
    await page.getByRole('link', { name: 'Typeahead', exact: true }).click();
    await page.getByLabel('Included terms (one per line)').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save terms' }).count(), 0);
    await page.getByRole('link', { name: 'Objects', exact: true }).click();
    await page.getByRole('heading', { name: 'Objects' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add link' }).count(), 0);
  });

  await t.test('signing out ends the session', async () => {
    const cookies = await context.cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const after = await fetch(`${suite.service.url}/api/session`, { headers: { cookie } });
    assert.equal(after.status, 401);
  });
});
