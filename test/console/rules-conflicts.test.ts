// Conflicts in the rules listing, in a real browser against the real service on SQLite: a
// merchandiser's rule that blocks a document another rule boosts shows the conflict with the
// other rule linked and the reason; the link opens that rule; a rule without one says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
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

test('the rules listing shows each conflict with the other rule and why', { skip }, async (t) => {
  const who = suite.usersExist ? MERCHANDISER : ADMIN;
  const context = await signedInContext(suite.browser, suite.service.url, who, {
    viewport: { width: 1280, height: 800 },
    bypassCSP: true,
  });
  const page = await context.newPage();
  t.after(() => context.close());
  const headers = { 'x-csrf-token': await csrfTokenOf(page, suite.service.url) };
  for (const data of [
    { type: 'blockList', name: 'Block P5', fieldName: 'id', fieldValues: ['P5'] },
    { type: 'boostList', name: 'Boost P5', fieldName: 'id', fieldValues: ['P5', 'P6'], boost: 5 },
    { type: 'buryList', name: 'Bury P9', fieldName: 'id', fieldValues: ['P9'], boost: 5 },
  ]) {
    const made = await page.request.post(`${suite.service.url}/studios/shop/em-rules`, { headers, data });
    assert.equal(made.status(), 201, await made.text());
  }

  await page.goto(`${suite.service.url}/console/rules?studio=shop&sort=name,asc`);
  // A row is told by its own checkbox: the other rows' conflict lists name it too.
  const rowOf = (name: string) =>
    page
      .getByRole('row')
      .filter({ has: page.getByRole('checkbox', { name: `Select ${name}`, exact: true }) });
  const block = rowOf('Block P5');
  await block.getByText('1 conflict').click();
  const listed = block.getByRole('list', { name: 'Conflicts of Block P5' });
  await listed.getByRole('link', { name: 'Boost P5' }).waitFor();
  assert.match((await listed.textContent()) ?? '', /\(Boost\): .*P5/);
  const boost = rowOf('Boost P5');
  await boost.getByText('1 conflict').click();
  await boost
    .getByRole('list', { name: 'Conflicts of Boost P5' })
    .getByRole('link', { name: 'Block P5' })
    .waitFor();
  const bury = rowOf('Bury P9');
  assert.equal(await bury.getByText(/conflict/).count(), 0);
  assert.match((await bury.textContent()) ?? '', /none/);
  await assertAccessible(page, 'conflicts in the rules listing');

  await listed.getByRole('link', { name: 'Boost P5' }).click();
  await page.getByRole('form', { name: 'Edit Boost P5' }).waitFor();
  assert.equal(await page.getByLabel('Values (one a line)').inputValue(), 'P5\nP6');
  assert.equal(await page.getByLabel('Boost', { exact: true }).inputValue(), '5');
});
