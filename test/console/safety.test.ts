// Changes shoppers would notice are asked first and can be undone, in a real browser against
// the real service on SQLite: Delete and Unpublish open an in-page dialog (never the browser's
// confirm()) that names the rule and says what happens; Cancel keeps the rule; after the
// change a toast offers Undo, which puts the rule back as it was, content and state. Deleting
// a user is asked too, and cannot be undone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  ADMIN,
  assertAccessible,
  browserSkipReason,
  csrfTokenOf,
  MERCHANDISER,
  seededConsole,
  signedInContext,
} from '../helpers/console.js';

const skip = browserSkipReason();
const suite = seededConsole();

interface StoredRule {
  id: string;
  name: string;
  type: string;
  publishState: string;
  markedForDeletion: boolean;
  fieldValues?: string[];
  bannerUrl?: string;
  zone?: string;
  conditions: { queries: string[] };
  liveContent: { fieldValues?: string[] } | null;
}

/** The studio's rules as the API lists them, by name. */
async function rulesByName(page: Page): Promise<Map<string, StoredRule>> {
  const answer = await page.request.get(`${suite.service.url}/studios/shop/em-rules?size=100`);
  assert.equal(answer.status(), 200);
  const { content } = (await answer.json()) as { content: StoredRule[] };
  return new Map(content.map((rule) => [rule.name, rule]));
}

/** Opens a page whose every browser dialog (confirm(), alert()) fails the test. */
async function consolePage(t: import('node:test').TestContext): Promise<Page> {
  const who = suite.usersExist ? MERCHANDISER : ADMIN;
  const context = await signedInContext(suite.browser, suite.service.url, who, {
    viewport: { width: 1280, height: 800 },
    bypassCSP: true,
  });
  t.after(() => context.close());
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    void dialog.dismiss();
    assert.fail(`the browser's own ${dialog.type()}() was used: ${dialog.message()}`);
  });
  return page;
}

test('a rule is deleted only once confirmed, and Undo brings it back', { skip }, async (t) => {
  const page = await consolePage(t);
  const headers = { 'x-csrf-token': await csrfTokenOf(page, suite.service.url) };
  const made = await page.request.post(`${suite.service.url}/studios/shop/em-rules`, {
    headers,
    data: {
      type: 'banner',
      name: 'Kettle banner',
      description: 'autumn campaign',
      bannerUrl: 'https://cdn.shop.example/kettles.png',
      zone: 'top',
      tags: ['autumn'],
      precedence: 3,
      conditions: { queries: ['kettle'], queryMatch: 'contains' },
    },
  });
  assert.equal(made.status(), 201, await made.text());
  const original = (await made.json()) as Record<string, unknown>;

  await page.goto(`${suite.service.url}/console/rules?studio=shop`);
  const row = page.getByRole('row').filter({ hasText: 'Kettle banner' });
  const dialog = page.getByRole('dialog', { name: 'Delete the rule "Kettle banner"?' });

  await t.test('Cancel keeps the rule', async () => {
    await row.getByRole('button', { name: 'Delete Kettle banner' }).click();
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /never published/);
    // The safe choice has the focus: Enter does not delete.
    assert.equal(
      await dialog
        .getByRole('button', { name: 'Cancel', exact: true })
        .evaluate((b) => b === b.ownerDocument.activeElement),
      true,
    );
    await assertAccessible(page, 'the delete dialog');
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.ok((await rulesByName(page)).has('Kettle banner'), 'still there after Cancel');
    // Escape cancels too.
    await row.getByRole('button', { name: 'Delete Kettle banner' }).click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.ok((await rulesByName(page)).has('Kettle banner'), 'still there after Escape');
    await row.waitFor();
  });

  await t.test('Delete, confirmed, deletes; Undo creates it again with its content', async () => {
    await row.getByRole('button', { name: 'Delete Kettle banner' }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal((await rulesByName(page)).has('Kettle banner'), false, 'gone once confirmed');
    const toast = page.getByRole('status').filter({ hasText: 'Deleted the rule "Kettle banner".' });
    await toast.waitFor();
    await assertAccessible(page, 'the toast offering Undo');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('status').filter({ hasText: 'The rule "Kettle banner" is back.' }).waitFor();
    await row.waitFor();
    const again = (await rulesByName(page)).get('Kettle banner') as unknown as Record<string, unknown>;
    for (const field of [
      'type',
      'description',
      'bannerUrl',
      'zone',
      'tags',
      'precedence',
      'conditions',
      'publishState',
    ]) {
      assert.deepEqual(again[field], original[field], field);
    }
  });
});

test('Unpublish is confirmed, and Undo puts live and staging back as they were', { skip }, async (t) => {
  const page = await consolePage(t);
  const url = suite.service.url;
  const headers = { 'x-csrf-token': await csrfTokenOf(page, url) };
  const ids: Record<string, string> = {};
  for (const name of ['Block K-1', 'Block K-2']) {
    const made = await page.request.post(`${url}/studios/shop/em-rules`, {
      headers,
      data: { type: 'blockList', name, fieldName: 'id', fieldValues: ['K-1'] },
    });
    ids[name] = ((await made.json()) as { id: string }).id;
    assert.equal(
      (await page.request.post(`${url}/studios/shop/em-rules/${ids[name]}/publish`, { headers })).status(),
      200,
    );
  }
  // Block K-2 has draft edits on top of its live version.
  const edited = await page.request.put(`${url}/studios/shop/em-rules/${ids['Block K-2']}`, {
    headers,
    data: { type: 'blockList', name: 'Block K-2', fieldName: 'id', fieldValues: ['K-1', 'K-2'] },
  });
  assert.equal(edited.status(), 200, await edited.text());
  await page.goto(`${url}/console/rules?studio=shop`);

  for (const name of ['Block K-1', 'Block K-2']) {
    await t.test(`${name}: unpublished once confirmed, then undone`, async () => {
      const before = (await rulesByName(page)).get(name);
      const row = page.getByRole('row').filter({ hasText: name });
      await row.getByRole('button', { name: `Unpublish ${name}` }).click();
      const dialog = page.getByRole('dialog', { name: `Unpublish the rule "${name}"?` });
      assert.match((await dialog.textContent()) ?? '', /Shoppers stop seeing it at once/);
      await dialog.getByRole('button', { name: 'Unpublish', exact: true }).click();
      await row.getByRole('button', { name: `Publish ${name}`, exact: true }).waitFor();
      const unpublished = (await rulesByName(page)).get(name);
      assert.equal(unpublished?.publishState, 'DRAFT');
      assert.equal(unpublished?.liveContent, null);
      await page
        .getByRole('status')
        .filter({ hasText: `Unpublished the rule "${name}".` })
        .getByRole('button', { name: 'Undo' })
        .click();
      await page
        .getByRole('status')
        .filter({ hasText: `The rule "${name}" is live again.` })
        .waitFor();
      const after = (await rulesByName(page)).get(name);
      assert.equal(after?.publishState, before?.publishState);
      assert.deepEqual(after?.fieldValues, before?.fieldValues, 'staging as before');
      assert.deepEqual(after?.liveContent?.fieldValues, before?.liveContent?.fieldValues, 'live as before');
      await row.getByRole('button', { name: `Unpublish ${name}` }).waitFor();
    });
  }

  await t.test('a published rule deleted is marked; Undo restores it', async () => {
    const row = page.getByRole('row').filter({ hasText: 'Block K-1' });
    await row.getByRole('button', { name: 'Delete Block K-1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the rule "Block K-1"?' });
    assert.match((await dialog.textContent()) ?? '', /once the deletion is published/);
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await row.getByRole('button', { name: 'Restore Block K-1' }).waitFor();
    assert.equal((await rulesByName(page)).get('Block K-1')?.markedForDeletion, true);
    await page
      .getByRole('status')
      .filter({ hasText: 'Marked the rule "Block K-1" for deletion.' })
      .getByRole('button', { name: 'Undo' })
      .click();
    await row.getByRole('button', { name: 'Delete Block K-1' }).waitFor();
    assert.equal((await rulesByName(page)).get('Block K-1')?.markedForDeletion, false);
  });
});

test('deleting a user is asked first and says it cannot be undone', { skip }, async (t) => {
  const context = await signedInContext(suite.browser, suite.service.url, ADMIN, {
    viewport: { width: 1280, height: 800 },
    bypassCSP: true,
  });
  t.after(() => context.close());
  const page = await context.newPage();
  const made = await suite.service.admin('POST', '/api/users', {
    username: 'temp',
    password: 'temp-password-1',
    role: 'viewer',
  });
  assert.ok(made.status < 300, JSON.stringify(made));
  await page.goto(`${suite.service.url}/console/users`);
  const row = page.getByRole('row').filter({ hasText: 'temp' });
  await row.getByRole('button', { name: 'Delete temp' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete the user "temp"?' });
  assert.match((await dialog.textContent()) ?? '', /cannot be undone/);
  await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal((await suite.service.admin('GET', '/api/users/temp')).status, 200);
  await row.getByRole('button', { name: 'Delete temp' }).click();
  await dialog.getByRole('button', { name: 'Delete user' }).click();
  await row.waitFor({ state: 'detached' });
  assert.equal((await suite.service.admin('GET', '/api/users/temp')).status, 404);
  const toast = page.getByRole('status').filter({ hasText: 'Deleted the user "temp".' });
  await toast.waitFor();
  assert.equal(await toast.getByRole('button', { name: 'Undo' }).count(), 0);
});
