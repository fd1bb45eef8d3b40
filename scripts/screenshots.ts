// `npm run screenshots`: every page of the console at 1280×800 and at a phone's 390 px
// (whole pages), written to docs/console/, from
// the real service on a fresh SQLite database with some content and the demo shop (`searchdeck
// demo`) on the project's real SolrCloud, through Debian's Chromium.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEMO_QUERY, runDemo } from '../src/demo/demo.js';
import {
  ADMIN,
  browserSkipReason,
  csrfTokenOf,
  launchChromium,
  seed,
  startConsoleService,
} from '../test/helpers/console.js';
import { SOLR_CREDENTIALS, startSolrCloud } from './solr-cloud.js';

const out = fileURLToPath(new URL('../docs/console/', import.meta.url));
const why = browserSkipReason();
if (why) {
  console.error(why);
  process.exit(1);
}
mkdirSync(out, { recursive: true });
const service = await startConsoleService();
const browser = await launchChromium();
const solr = await startSolrCloud({ nodes: 1, log: (line) => console.log(line) });
try {
  await seed(service);
  // The demo shop: its cluster, the sample catalog indexed, example rules live, the profile "web".
  await runDemo(
    {
      url: service.url,
      user: ADMIN.username,
      password: ADMIN.password,
      solr: { cloud: true, zk: solr.zk },
      solrCredentials: SOLR_CREDENTIALS,
      collection: 'products',
      app: 'shop',
      newKey: false,
    },
    () => {},
  );
  // The shop's shoppers: searches with the profile's search-only key, and clicks and purchases
  // posted with their query ids, for the Analytics page.
  const key = (
    (await service.admin('POST', '/api/apps/shop/query-profiles/web/keys')).body as { key: string }
  ).key;
  const signals: unknown[] = [];
  for (const [q, times, clickEvery, buyEvery] of [
    ['kettle', 24, 2, 6],
    ['toaster', 11, 3, 0],
    ['kettel', 6, 2, 0],
    ['coffee grinder', 5, 0, 0],
    ['electric kettle', 4, 1, 4],
    ['teapto', 3, 0, 0],
  ] as const) {
    for (let i = 0; i < times; i++) {
      const answer = await fetch(`${service.url}/api/apps/shop/query/web?q=${encodeURIComponent(q)}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const queryId = answer.headers.get('x-fusion-query-id');
      const docs = ((await answer.json()) as { response: { docs: { id: string }[] } }).response.docs;
      const docId = docs[i % Math.max(1, Math.min(3, docs.length))]?.id;
      if (!docId || !queryId) continue;
      if (clickEvery > 0 && i % clickEvery === 0)
        signals.push({ type: 'click', params: { query: q, docId, fusion_query_id: queryId } });
      if (buyEvery > 0 && i % buyEvery === 0)
        signals.push({ type: 'purchase', params: { query: q, docId, fusion_query_id: queryId } });
    }
  }
  await fetch(`${service.url}/api/apps/shop/signals/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(signals),
  });
  // Counted within 10 s (the rollup's schedule).
  for (let tries = 0; tries < 60; tries++) {
    const top = await service.admin('GET', '/api/apps/shop/analytics/web/searches');
    if ((top.body as { searches?: unknown[] }).searches?.length) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // An experiment on the profile: B puts popular products first; its shoppers click more.
  await service.admin('POST', '/api/apps/shop/experiments', {
    id: 'popular-first',
    description: 'Do shoppers click more when popular products come first?',
    variants: [
      { id: 'a', name: 'A', weight: 50 },
      {
        id: 'b',
        name: 'B',
        weight: 50,
        params: [{ key: 'sort', value: 'popularity desc', policy: 'replace' }],
      },
    ],
  });
  const web = (await service.admin('GET', '/api/apps/shop/query-profiles/web')).body as Record<
    string,
    unknown
  >;
  const { id: _id, createdAt: _c, updatedAt: _u, ...webSettings } = web;
  await service.admin('PUT', '/api/apps/shop/query-profiles/web', {
    ...webSettings,
    experiment: 'popular-first',
  });
  const experiment = (await service.admin('GET', '/api/apps/shop/experiments/popular-first')).body as Record<
    string,
    unknown
  >;
  const { id: _e, createdAt: _ec, updatedAt: _eu, running: _r, ...experimentSettings } = experiment;
  await service.admin('PUT', '/api/apps/shop/experiments/popular-first', {
    ...experimentSettings,
    enabled: true,
  });
  const experimentSignals: unknown[] = [];
  for (let i = 0; i < 80; i++) {
    const answer = await fetch(`${service.url}/api/apps/shop/query/web?q=kettle&user_id=shopper-${i}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const queryId = answer.headers.get('x-fusion-query-id');
    const body = (await answer.json()) as {
      response: { docs: { id: string }[] };
      fusion?: { variant?: string };
    };
    const docId = body.response.docs[0]?.id;
    const clickEvery = body.fusion?.variant === 'b' ? 2 : 4;
    if (docId && queryId && i % clickEvery === 0)
      experimentSignals.push({ type: 'click', params: { query: 'kettle', docId, fusion_query_id: queryId } });
  }
  await fetch(`${service.url}/api/apps/shop/signals/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(experimentSignals),
  });
  for (let tries = 0; tries < 60; tries++) {
    const metrics = await service.admin('GET', '/api/apps/shop/experiments/popular-first/metrics');
    const counted = (metrics.body as { variants?: { searches: number }[] }).variants ?? [];
    if (counted.reduce((sum, v) => sum + v.searches, 0) >= 80) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // Searches over the last day, for the chart: more in the evening than at night.
  const now = Date.now();
  await service.admin(
    'POST',
    '/api/typeahead/instances/shop-en/search-logs',
    Array.from({ length: 30 }, (_, hour) => ({
      query: ['electric kettle', 'elastic band', 'toaster'][hour % 3],
      count: 5 + Math.round(20 * Math.abs(Math.sin(hour / 5))),
      timestamp: new Date(now - hour * 3_600_000).toISOString(),
    })),
  );
  await service.admin('POST', '/api/studios/shop/clients', {
    name: 'feed importer',
    scopes: ['commercestudio.rules'],
  });
  await service.admin('POST', '/api/studios/shop/clients', { name: 'ci' });
  await service.admin('PUT', '/api/typeahead/instances/shop-en/terms', {
    included: ['Elastic band', 'Electric kettle', 'Electric toothbrush'],
    excluded: ['elbow grease'],
  });
  await service.admin('PUT', '/api/links', {
    subject: 'app:shop',
    object: 'search-cluster:products',
    linkType: 'dependsOn',
  });
  await service.admin('PUT', '/api/links', {
    subject: 'app:shop',
    object: 'index:products',
    linkType: 'relatesTo',
  });

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // The landing page at `/`, where a newcomer starts.
  await page.goto(`${service.url}/`);
  await page.screenshot({ path: `${out}landing.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${out}landing-390.png` });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${service.url}/console`);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await page.screenshot({ path: `${out}sign-in.png` });
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();

  // A few rules, when the Rules API takes the session (made through the console itself).
  await page.goto(`${service.url}/console/rules?studio=shop`);
  const rules = await page.request.get(`${service.url}/studios/shop/em-rules`);
  if (rules.ok()) {
    for (const [name, values] of [
      ['Block discontinued kettles', 'K-100\nK-200'],
      ['Block recalled chargers', 'C-9'],
    ] as const) {
      await page.goto(`${service.url}/console/rules/new?studio=shop`);
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('Values (one a line)').fill(values);
      await page.getByRole('button', { name: 'Save' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Saved ${name}` })
        .waitFor();
    }
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('status').filter({ hasText: 'Published' }).waitFor();
    await page.screenshot({ path: `${out}rule-editor.png` });
    // A boost of a blocked kettle: a conflict in the listing; a misspelling for the workbench.
    const headers = { 'x-csrf-token': await csrfTokenOf(page, service.url) };
    await page.request.post(`${service.url}/studios/shop/em-rules`, {
      headers,
      data: {
        type: 'boostList',
        name: 'Boost kettles',
        fieldName: 'id',
        fieldValues: ['K-100', 'K-300'],
        boost: 20,
      },
    });
    const rewrite = await page.request.post(`${service.url}/studios/shop/query-rewrites`, {
      headers,
      data: { type: 'misspelling', misspelling: 'ketle', correction: 'kettle' },
    });
    const { id } = (await rewrite.json()) as { id: string };
    await page.request.post(`${service.url}/studios/shop/query-rewrites/${id}/publish`, { headers });
  } else {
    console.warn(`rules: ${rules.status()} with the session; the Rules pages are shown empty`);
  }

  const shots: [string, string, (() => Promise<void>)?][] = [
    ['rules', '/rules?studio=shop'],
    ['rewrites', '/rewrites?studio=shop'],
    [
      'typeahead',
      '/typeahead?instance=shop-en',
      async () => {
        await page.getByLabel('Preview suggestions').fill('ele');
        await page.getByRole('list', { name: 'Suggestions' }).getByText('Electric kettle').waitFor();
      },
    ],
    ['objects', '/objects?object=app:shop', () => page.waitForTimeout(1000)],
    [
      'search-clusters',
      '/clusters',
      async () => {
        // The demo's cluster passes its check; the one nothing answers for shows where it fails.
        await page.getByRole('button', { name: 'Check shop-solr' }).click();
        await page
          .getByRole('region', { name: 'Check of shop-solr' })
          .getByText('Every step passed')
          .waitFor({ timeout: 30_000 });
        await page.getByRole('button', { name: 'Check products' }).click();
        await page
          .getByRole('region', { name: 'Check of products' })
          .getByText(/failed/)
          .first()
          .waitFor({ timeout: 30_000 });
      },
    ],
    [
      'query-profiles',
      '/query-profiles?app=shop&profile=web',
      async () => {
        // The demo's misspelling is corrected, its pin, block, boost and banner act on the cards.
        const workbench = page.getByRole('region', { name: 'Workbench of web' });
        await workbench.getByLabel("Shopper's query").fill(`${DEMO_QUERY.slice(0, -2)}el`);
        await workbench.getByRole('button', { name: 'Send query' }).click();
        await workbench.getByRole('region', { name: 'Live results' }).getByRole('listitem').first().waitFor();
        await workbench
          .getByRole('region', { name: 'Live results' })
          .evaluate((column) => column.scrollIntoView({ block: 'start' }));
      },
    ],
    ['api-clients', '/api-clients?studio=shop'],
    [
      'analytics',
      '/analytics?app=shop&profile=web',
      async () => {
        await page.getByRole('region', { name: 'Top searches' }).getByRole('table').waitFor();
      },
    ],
    [
      'analytics-search',
      '/analytics?app=shop&profile=web&search=kettle',
      async () => {
        await page
          .getByRole('region', { name: 'Search “kettle”', exact: true })
          .getByRole('table')
          .first()
          .waitFor();
        await page
          .getByRole('region', { name: 'Search “kettle”', exact: true })
          .evaluate((section) => section.scrollIntoView({ block: 'start' }));
      },
    ],
    [
      'experiments',
      '/experiments?app=shop&experiment=popular-first',
      async () => {
        await page.getByRole('list', { name: 'What the figures of popular-first say' }).waitFor();
        await page
          .getByRole('region', { name: 'Results of popular-first' })
          .evaluate((section) => section.scrollIntoView({ block: 'start' }));
      },
    ],
    ['users', '/users'],
    ['history', '/history'],
  ];
  for (const [name, path, prepare] of shots) {
    await page.goto(`${service.url}/console${path}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    await prepare?.();
    await page.screenshot({ path: `${out}${name}.png` });
    console.log(`wrote docs/console/${name}.png`);
  }
  // Safety: the dialog before a delete, then the toast that offers Undo (used, to leave the rule).
  if (rules.ok()) {
    await page.goto(`${service.url}/console/rules?studio=shop`);
    await page.getByRole('button', { name: 'Unpublish Block recalled chargers' }).click();
    const dialog = page.getByRole('dialog', { name: 'Unpublish the rule "Block recalled chargers"?' });
    await dialog.waitFor();
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${out}confirm-dialog.png` });
    console.log('wrote docs/console/confirm-dialog.png');
    await dialog.getByRole('button', { name: 'Unpublish', exact: true }).click();
    const toast = page.getByRole('status').filter({ hasText: 'Unpublished the rule' });
    await toast.waitFor();
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${out}undo-toast.png` });
    console.log('wrote docs/console/undo-toast.png');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('status').filter({ hasText: 'is live again' }).waitFor();
  }

  // A phone's width (390 px), whole pages: every page, and the navigation opened by the burger.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [name, path, prepare] of [
    ['rule-editor', '/rules/new?studio=shop'] as const,
    ['not-found', '/no-such-page'] as const,
    ...shots,
  ]) {
    await page.goto(`${service.url}/console${path}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    await prepare?.();
    // A whole page is drawn from its top: the fixed header stays there, not where the page was scrolled to.
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: `${out}${name}-390.png`, fullPage: true });
    console.log(`wrote docs/console/${name}-390.png`);
  }
  await page.goto(`${service.url}/console/rules?studio=shop`);
  await page.getByRole('button', { name: 'Navigation' }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History' }).waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${out}navigation-390.png` });
  console.log('wrote docs/console/navigation-390.png');
} finally {
  await solr.stop();
  await browser.close();
  await service.stop();
}
