// The forms of the rule kinds of category pages and campaigns, in a real browser against the
// real service on SQLite: each kind (only show products with…, boost or bury by an attribute,
// Solr parameters, data for the shop's page, facet order) is created through its form, in the
// merchandiser's words and without JSON, and stored as the API's shape; a bad value gets the
// API's message, in a sentence, beside its input; the editor of a kind with rows passes axe at
// desk and phone width, without horizontal scrolling on the phone. One page, in order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  ADMIN,
  assertAccessible,
  browserSkipReason,
  MERCHANDISER,
  seededConsole,
  signedInContext,
} from '../helpers/console.js';

const skip = browserSkipReason();
const suite = seededConsole();

type Stored = Record<string, unknown> & { id: string; name: string; type: string };

async function ruleNamed(page: Page, name: string): Promise<Stored> {
  const answer = await page.request.get(`${suite.service.url}/studios/shop/em-rules?size=100`);
  assert.equal(answer.status(), 200);
  const { content } = (await answer.json()) as { content: Stored[] };
  const rule = content.find((r) => r.name === name);
  assert.ok(rule, `no rule named ${name}`);
  return rule;
}

/** Opens a new rule of the type labelled `type` and names it. */
async function newRule(page: Page, type: string, name: string): Promise<void> {
  await page.goto(`${suite.service.url}/console/rules/new?studio=shop`);
  await page.getByLabel('Type', { exact: true }).selectOption({ label: type });
  await page.getByLabel('Name', { exact: true }).fill(name);
}

async function save(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Save' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Saved ${name}` })
    .waitFor();
}

const label = (page: Page, text: string) => page.getByLabel(text, { exact: true });

test('each new kind is made through its form, stored as the API has it, a bad value told beside its input', {
  skip,
}, async (t) => {
  const who = suite.usersExist ? MERCHANDISER : ADMIN;
  const context = await signedInContext(suite.browser, suite.service.url, who, {
    viewport: { width: 1280, height: 900 },
    bypassCSP: true,
  });
  t.after(() => context.close());
  const page = await context.newPage();

  // Only show products with…
  await newRule(page, 'Filter list', 'Mugs only');
  await page.getByRole('group', { name: 'Only show products with…' }).waitFor();
  await label(page, 'Attribute').fill('category');
  await label(page, 'One of these values (one a line)').fill('mugs\ncups');
  await save(page, 'Mugs only');
  const filter = await ruleNamed(page, 'Mugs only');
  assert.equal(filter.type, 'filterList');
  assert.equal(filter.fieldName, 'category');
  assert.deepEqual(filter.fieldValues, ['mugs', 'cups']);

  // Boost or bury by an attribute: a weight of 0 is refused, told beside its input.
  await newRule(page, 'Boost or bury by attribute', 'Acme up, refurbished down');
  await label(page, 'Attribute 1').fill('brand');
  await label(page, 'Value 1').fill('Acme');
  await label(page, 'By how much 1').fill('20');
  await page.getByRole('button', { name: 'Add a boost' }).click();
  await label(page, 'Boost or bury 2').selectOption({ label: 'Bury (move down)' });
  await label(page, 'Attribute 2').fill('condition');
  await label(page, 'Value 2').fill('refurbished');
  await label(page, 'By how much 2').fill('0');
  await page.getByRole('button', { name: 'Add a boost' }).click();
  await label(page, 'Or a filter 3').fill('price:[5 TO 15]');
  await label(page, 'By how much 3').fill('3');
  await page.getByRole('button', { name: 'Save' }).click();
  const weight = label(page, 'By how much 2');
  const beside = page.locator('.kind-row .field').filter({ has: weight }).locator('.field-error');
  await beside.filter({ hasText: 'Enter a number other than 0.' }).waitFor();
  assert.equal(await weight.getAttribute('aria-invalid'), 'true');
  assert.equal(await label(page, 'By how much 1').getAttribute('aria-invalid'), 'false');
  await weight.fill('5');
  await save(page, 'Acme up, refurbished down');
  const boosts = (await ruleNamed(page, 'Acme up, refurbished down')).boosts as Record<string, unknown>[];
  assert.deepEqual(boosts.slice(0, 2), [
    { fieldName: 'brand', value: 'Acme', weight: 20 },
    { fieldName: 'condition', value: 'refurbished', weight: -5 },
  ]);
  assert.equal(boosts[2]?.weight, 3);
  // The filter as the service keeps it (its safe form, the bounds quoted).
  assert.equal(boosts[2]?.query, 'price:["5" TO "15"]');
  // Opened again, a bury reads as one, by the weight's size.
  await page.reload();
  assert.equal(await label(page, 'Boost or bury 2').inputValue(), 'bury');
  assert.equal(await label(page, 'By how much 2').inputValue(), '5');

  // Solr parameters (for experts).
  await newRule(page, 'Solr parameters', 'Sale pages: 48 rows');
  await label(page, 'Parameter 1').fill('rows');
  await label(page, 'Value 1').fill('48');
  await page.getByRole('button', { name: 'Add a parameter' }).click();
  await label(page, 'Parameter 2').fill('fq');
  await label(page, 'Value 2').fill('in_stock:true');
  await label(page, 'How 2').selectOption({ label: 'Add to the values' });
  await page.getByRole('button', { name: 'Add a parameter' }).click();
  await label(page, 'Parameter 3').fill('mm');
  await label(page, 'How 3').selectOption({ label: 'Remove the parameter' });
  // A removed parameter has no value to type.
  assert.equal(await label(page, 'Value 3').isDisabled(), true);
  await save(page, 'Sale pages: 48 rows');
  const params = (await ruleNamed(page, 'Sale pages: 48 rows')).params as Record<string, unknown>[];
  assert.deepEqual(
    params.map(({ key, value, policy }) => ({ key, value: value ?? '', policy })),
    [
      { key: 'rows', value: '48', policy: 'replace' },
      // An fq in its safe form, as the shopper's own.
      { key: 'fq', value: 'in_stock:"true"', policy: 'append' },
      { key: 'mm', value: '', policy: 'remove' },
    ],
  );

  // Data for the shop's page: a value in JSON is stored as JSON, a word as a text.
  await newRule(page, 'Data for the page', 'Winter campaign hero');
  await label(page, 'Name 1').fill('hero');
  await label(page, 'Value 1').fill('{"title": "Winter sale"}');
  await page.getByRole('button', { name: 'Add a value' }).click();
  await label(page, 'Name 2').fill('layout');
  await label(page, 'Value 2').fill('grid');
  await save(page, 'Winter campaign hero');
  assert.deepEqual((await ruleNamed(page, 'Winter campaign hero')).responseValues, [
    { key: 'hero', value: { title: 'Winter sale' } },
    { key: 'layout', value: 'grid' },
  ]);

  // Facet order.
  await newRule(page, 'Facet order', 'Browse facets');
  await label(page, 'Facets, in this order (one a line)').fill('brand\nprice\ncolour');
  await save(page, 'Browse facets');
  assert.deepEqual((await ruleNamed(page, 'Browse facets')).facetFields, ['brand', 'price', 'colour']);

  // The editor of a kind with rows, at desk and phone width.
  const boost = await ruleNamed(page, 'Acme up, refurbished down');
  await page.goto(`${suite.service.url}/console/rules/${boost.id}?studio=shop`);
  await label(page, 'By how much 3').waitFor();
  await assertAccessible(page, 'the boost-by-attribute editor at 1280 px');
  await page.setViewportSize({ width: 390, height: 844 });
  await assertAccessible(page, 'the boost-by-attribute editor at 390 px');
  const overflow = await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);
  assert.equal(overflow, 0, 'no horizontal scrolling at 390 px');
});
