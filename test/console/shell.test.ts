// The console's shell in a real browser against the real service on SQLite: every page at a
// desktop's 1280 px and a phone's 390 px is accessible (axe: no serious or critical violation)
// and no wider than the window; the burger opens the navigation on the phone; the skip link
// moves focus to the content; an unknown address shows the not-found page; a listing on its
// way shows a loader, never "No rules".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  ADMIN,
  assertAccessible,
  browserSkipReason,
  csrfTokenOf,
  goWithin,
  seededConsole,
  signedInContext,
} from '../helpers/console.js';

const skip = browserSkipReason();
const suite = seededConsole();

/** Waits until no loader is on the page: what the page shows then is its answer. */
async function loaded(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.waitForFunction("document.querySelector('[data-loading]') === null");
}

/** Whether the page is wider than the window (it would scroll sideways). */
async function assertFits(page: Page, what: string): Promise<void> {
  // Evaluated in the page (the tests' own TypeScript has no DOM types).
  const { scrollWidth, innerWidth } = (await page.evaluate(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  )) as { scrollWidth: number; innerWidth: number };
  assert.ok(
    scrollWidth <= innerWidth,
    `${what}: the page is ${scrollWidth} px wide in a ${innerWidth} px window`,
  );
}

/** A context signed in as the admin, with the policy bypassed for axe-core. */
function adminContext(viewport: { width: number; height: number }) {
  return signedInContext(suite.browser, suite.service.url, ADMIN, { viewport, bypassCSP: true });
}

/** Content with long words and wide tables: rules, a rewrite, a rule with draft edits, a profile. */
async function content(page: Page): Promise<{ editedRule: string }> {
  const url = suite.service.url;
  const headers = { 'x-csrf-token': await csrfTokenOf(page, url) };
  const post = async (path: string, data?: unknown) => {
    const answer = await page.request.post(`${url}${path}`, { headers, ...(data ? { data } : {}) });
    assert.ok(answer.ok(), `${path}: ${answer.status()} ${await answer.text()}`);
    return (await answer.json()) as { id: string };
  };
  await post('/studios/shop/em-rules', {
    type: 'banner',
    name: 'Autumn kettles banner for the front page of the shop',
    bannerUrl: 'https://cdn.shop.example/banners/autumn-kettles-front-page-2026-with-a-very-long-name.png',
    zone: 'top',
    conditions: { queries: ['kettle', 'electric kettle'] },
  });
  const edited = await post('/studios/shop/em-rules', {
    type: 'blockList',
    name: 'Block discontinued kettles',
    fieldName: 'id',
    fieldValues: ['K-100', 'K-200'],
  });
  await post(`/studios/shop/em-rules/${edited.id}/publish`);
  const put = await page.request.put(`${url}/studios/shop/em-rules/${edited.id}`, {
    headers,
    data: { type: 'blockList', name: 'Block discontinued kettles', fieldName: 'id', fieldValues: ['K-100'] },
  });
  assert.equal(put.status(), 200, await put.text());
  await post('/studios/shop/query-rewrites', { type: 'synonym', synonyms: ['sofa', 'couch', 'settee'] });
  return { editedRule: edited.id };
}

test('the shell: every page fits and is accessible at 1280 and 390 px', { skip }, async (t) => {
  const context = await adminContext({ width: 1280, height: 800 });
  const page = await context.newPage();
  t.after(() => context.close());
  await page.goto(`${suite.service.url}/console`);
  const { editedRule } = await content(page);
  const pages: [string, string, ((page: Page) => Promise<void>)?][] = [
    ['rules', '/rules?studio=shop'],
    ['new rule', '/rules/new?studio=shop'],
    ['rule with draft edits', `/rules/${editedRule}?studio=shop`],
    ['rewrites', '/rewrites?studio=shop'],
    ['studios', '/studios'],
    ['new studio', '/studios?new=1'],
    ['new search cluster', '/clusters?new=1'],
    ['typeahead', '/typeahead?instance=shop-en'],
    [
      'objects',
      '/objects?object=app:shop',
      (p) => p.getByRole('img', { name: /^Graph of app:shop/ }).waitFor(),
    ],
    [
      'search clusters',
      '/clusters',
      async (p) => {
        await p.getByRole('button', { name: 'Check products' }).click();
        await p
          .getByRole('region', { name: 'Check of products' })
          .getByText('ZooKeeper answers at this address: failed')
          .waitFor({ timeout: 30_000 });
      },
    ],
    ['query profiles', '/query-profiles?app=shop'],
    ['experiments', '/experiments?app=shop'],
    ['new experiment', '/experiments?app=shop&edit=new'],
    ['users', '/users'],
    ['API clients', '/api-clients?studio=shop'],
    ['history', '/history'],
    ['not found', '/no-such-page'],
  ];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    for (const [name, path, prepare] of pages) {
      await t.test(`${name} at ${width} px`, async () => {
        await goWithin(page, path);
        await loaded(page);
        await prepare?.(page);
        await assertFits(page, `${name} at ${width} px`);
        await assertAccessible(page, `${name} at ${width} px`);
      });
    }
  }
  await t.test('the sign-in page at 390 px', async () => {
    await context.clearCookies();
    await page.goto(`${suite.service.url}/console`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await assertFits(page, 'sign-in at 390 px');
    await assertAccessible(page, 'sign-in at 390 px');
  });
});

test('at 390 px the navigation hides behind the burger, which opens it', { skip }, async (t) => {
  const context = await adminContext({ width: 390, height: 844 });
  const page = await context.newPage();
  t.after(() => context.close());
  await page.goto(`${suite.service.url}/console`);
  const navigation = page.getByRole('navigation', { name: 'Main', includeHidden: true });
  const history = navigation.getByRole('link', { name: 'History', exact: true });
  await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor();
  assert.equal(await history.isVisible(), false, 'the navigation starts hidden');
  const burger = page.getByRole('button', { name: 'Navigation' });
  assert.equal(await burger.getAttribute('aria-expanded'), 'false');
  await burger.click();
  assert.equal(await burger.getAttribute('aria-expanded'), 'true');
  await history.waitFor();
  await assertAccessible(page, 'the open navigation at 390 px');
  await history.click();
  await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
  // Going to a page closes the navigation again.
  await history.waitFor({ state: 'hidden' });
  assert.equal(await burger.getAttribute('aria-expanded'), 'false');
  // At a desktop's width there is no burger: the navigation is always there.
  await page.setViewportSize({ width: 1280, height: 800 });
  await history.waitFor();
  assert.equal(await burger.isVisible(), false);
});

test('the skip link is the first stop of the keyboard and moves focus to the content', {
  skip,
}, async (t) => {
  const context = await adminContext({ width: 1280, height: 800 });
  const page = await context.newPage();
  t.after(() => context.close());
  await page.goto(`${suite.service.url}/console/history`);
  await loaded(page);
  await page.keyboard.press('Tab');
  const first = await page.evaluate('document.activeElement?.textContent');
  assert.equal(first, 'Skip to content');
  assert.ok(await page.getByRole('link', { name: 'Skip to content' }).isVisible(), 'shown once focused');
  await page.keyboard.press('Enter');
  await page.waitForFunction("document.activeElement?.id === 'content'");
  assert.equal(await page.evaluate('document.activeElement?.tagName'), 'MAIN');
  // The next Tab goes on from the content, not from the navigation.
  await page.keyboard.press('Tab');
  const next = await page.evaluate("document.activeElement?.closest('nav, main')?.tagName");
  assert.equal(next, 'MAIN');
});

test('an unknown console address shows the not-found page, with the way home', { skip }, async (t) => {
  const context = await adminContext({ width: 1280, height: 800 });
  const page = await context.newPage();
  t.after(() => context.close());
  for (const path of ['/rulez', '/users/someone', '/history/old/page']) {
    await page.goto(`${suite.service.url}/console${path}`);
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    assert.match((await page.getByRole('main').textContent()) ?? '', new RegExp(`/console${path}`));
    assert.equal(page.url(), `${suite.service.url}/console${path}`, 'the address stays as typed');
    assert.equal(await page.title(), 'Page not found · searchdeck console');
  }
  await page.getByRole('link', { name: /Go to Rules/ }).click();
  await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor();
  assert.match(page.url(), /\/console\/rules$/);
});

test('a listing on its way shows a loader, not an empty result', { skip }, async (t) => {
  const context = await adminContext({ width: 1280, height: 800 });
  const page = await context.newPage();
  t.after(() => context.close());
  // The listing's answer is held until the test has looked at the page.
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/studios\/outlet\/em-rules\?/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${suite.service.url}/console/rules?studio=outlet`);
  await page.getByRole('status').filter({ hasText: 'Loading rules…' }).waitFor();
  const main = page.getByRole('main');
  for (const empty of [/No rules/, /Page 0/, /0 rules/]) {
    assert.equal(await main.getByText(empty).count(), 0, `${empty} while loading`);
  }
  assert.equal(await main.getByRole('table').count(), 0, 'no empty table while loading');
  release();
  await main.getByText('No rules in outlet yet.').waitFor();
  assert.equal(await page.getByRole('status').filter({ hasText: 'Loading' }).count(), 0);
});

test('the landing page is styled like the console, fits a phone and is accessible', { skip }, async (t) => {
  // Without bypassing the page's policy first: its inline style sheet must be allowed by it.
  const strict = await suite.browser.newContext({ viewport: { width: 390, height: 844 } });
  t.after(() => strict.close());
  const page = await strict.newPage();
  const refused: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  await page.goto(`${suite.service.url}/`);
  const header = await page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor");
  assert.equal(header, 'rgb(31, 41, 55)', 'the style sheet applies');
  assert.deepEqual(refused, []);
  await page.getByRole('link', { name: 'Open the console' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();

  const checked = await suite.browser.newContext({ bypassCSP: true });
  t.after(() => checked.close());
  const checkedPage = await checked.newPage();
  for (const width of [1280, 390]) {
    await checkedPage.setViewportSize({ width, height: 800 });
    await checkedPage.goto(`${suite.service.url}/`);
    await assertFits(checkedPage, `the landing page at ${width} px`);
    await assertAccessible(checkedPage, `the landing page at ${width} px`);
  }
});
