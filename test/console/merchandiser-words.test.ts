// The merchandiser's words in a real browser against the real service on SQLite: the rules
// listing and editor name the types "Block list", "Pin products", … (never `blockList`),
// counts agree with their number, the API's validation messages are sentences beside the field
// (still marked invalid), and the History names each person one way and a rule by its name,
// its id on hover.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ADMIN,
  assertAccessible,
  browserSkipReason,
  csrfTokenOf,
  seededConsole,
  signedInContext,
} from '../helpers/console.js';

const skip = browserSkipReason();
const suite = seededConsole();

const API_NAMES = /\b(blockList|boostList|buryList|pinned|fieldValues|pinnedValues|bannerUrl|user:admin)\b/;

test('the console speaks the merchandiser’s words', { skip }, async (t) => {
  const context = await signedInContext(suite.browser, suite.service.url, ADMIN, {
    viewport: { width: 1280, height: 800 },
    bypassCSP: true,
  });
  const page = await context.newPage();
  t.after(() => context.close());
  const headers = { 'x-csrf-token': await csrfTokenOf(page, suite.service.url) };
  const bodies = [
    { type: 'blockList', name: 'Rule one', fieldName: 'id', fieldValues: ['P1'] },
    { type: 'boostList', name: 'Rule two', fieldName: 'id', fieldValues: ['P2'], boost: 5 },
    { type: 'buryList', name: 'Rule three', fieldName: 'id', fieldValues: ['P3'], boost: 5 },
    { type: 'pinned', name: 'Rule four', fieldName: 'id', pinnedValues: [{ value: 'P4', position: 1 }] },
    { type: 'redirect', name: 'Rule five', url: 'https://shop.example/kettles' },
    { type: 'banner', name: 'Rule six', bannerUrl: 'https://shop.example/b.png', zone: 'top' },
  ];
  for (const data of bodies) {
    const made = await page.request.post(`${suite.service.url}/studios/shop/em-rules`, { headers, data });
    assert.equal(made.status(), 201, await made.text());
  }
  const main = page.getByRole('main');

  await t.test('the listing names the types and counts the rules', async () => {
    await page.goto(`${suite.service.url}/console/rules?studio=shop`);
    await page.getByRole('row').filter({ hasText: 'Rule six' }).waitFor();
    for (const [name, type] of [
      ['Rule one', 'Block list'],
      ['Rule two', 'Boost'],
      ['Rule three', 'Bury'],
      ['Rule four', 'Pin products'],
      ['Rule five', 'Redirect'],
      ['Rule six', 'Banner'],
    ]) {
      const row = page.getByRole('row').filter({ hasText: name });
      assert.equal(
        await row.getByRole('cell', { name: type, exact: true }).count(),
        1,
        `${name} is a ${type}`,
      );
    }
    assert.deepEqual(await page.getByLabel('Type').locator('option').allInnerTexts(), [
      'any',
      'Block list',
      'Boost',
      'Bury',
      'Pin products',
      'Redirect',
      'Banner',
      'Filter list',
      'Boost or bury by attribute',
      'Solr parameters',
      'Data for the page',
      'Facet order',
    ]);
    await main.getByText('6 rules', { exact: true }).waitFor();
    assert.doesNotMatch((await main.textContent()) ?? '', API_NAMES);
    await page.getByLabel('Type').selectOption({ label: 'Banner' });
    await page.getByRole('row').filter({ hasText: 'Rule one' }).waitFor({ state: 'detached' });
    await main.getByText('1 rule', { exact: true }).waitFor();
    assert.doesNotMatch((await main.textContent()) ?? '', /1 rules/);
  });

  await t.test("the editor says the API's messages in sentences beside their fields", async () => {
    await page.goto(`${suite.service.url}/console/rules/new?studio=shop`);
    await page.getByLabel('Type').selectOption({ label: 'Block list' });
    await page.getByLabel('Name', { exact: true }).fill('Block nothing');
    await page.getByLabel('Values (one a line)').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    const message = page.locator('#fieldValues-error');
    await message.waitFor();
    assert.equal(await message.textContent(), 'Values cannot be empty.');
    assert.equal(await page.getByLabel('Values (one a line)').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Type').selectOption({ label: 'Redirect' });
    await page.getByLabel('Redirect URL').fill('kettles');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#url-error').filter({ hasText: 'Enter a full web address' }).waitFor();
    assert.equal(await page.getByLabel('Redirect URL').getAttribute('aria-invalid'), 'true');
    for (const said of await page.locator('.field-error, [role="alert"]').allTextContents()) {
      assert.doesNotMatch(said, / must |\burl\b|fieldValues/, said);
    }
    assert.doesNotMatch(
      (await page.getByRole('form').textContent()) ?? '',
      /JSON of the|redirect's own/,
      'the JSON view is named in words too',
    );
    await assertAccessible(page, 'the editor with its messages');
  });

  await t.test('the history names each person one way and the rules by their names', async () => {
    await page.goto(`${suite.service.url}/console/history`);
    // The studios were made by Basic credentials, the rules with the admin's session.
    const rule = page.getByRole('row').filter({ hasText: 'Rule "Rule six"' }).first();
    await rule.waitFor();
    assert.match(
      (await rule.textContent()) ?? '',
      /admin\s*Created\s*Rule "Rule six"\s*create rule "Rule six"/,
    );
    const named = rule.getByText('Rule "Rule six"', { exact: true });
    assert.match((await named.getAttribute('title')) ?? '', /^rule:[0-9a-f-]{36}$/);
    await page.getByRole('row').filter({ hasText: 'Studio "Shop"' }).first().waitFor();
    const who = await page.locator('tbody tr td:nth-child(2)').allInnerTexts();
    assert.deepEqual([...new Set(who)], ['admin']);
    assert.doesNotMatch((await main.textContent()) ?? '', API_NAMES);
    await assertAccessible(page, 'history with names');
  });
});
