// `searchdeck demo`: fills a running searchdeck, through its HTTP APIs only, with everything a
// shop's search needs, on a Solr the user names: an app with its search cluster (checked before
// it is stored), the products collection (made from the project's configset and filled with the
// sample catalog when missing or empty), a studio with example rules and rewrites published
// live, a typeahead instance and a query profile with a search-only key. Each object is looked
// up first and only what is missing is created, so a second run changes nothing. Every failure
// is one line saying what to do.
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { BasicCredentials } from '../clusters/solr.js';
import { describeSettings } from '../config.js';
import { type Product, SAMPLE_CATALOG_SIZE, sampleCatalog } from './catalog.js';
import {
  ensureProductsCollection,
  productsConfigsetDirectory,
  SolrAdminError,
  SolrCollections,
} from './solr-collections.js';

/** A failure the user fixes: printed as one line, without a stack. */
export class DemoError extends Error {}

export const DEMO_USAGE = `searchdeck demo: fill a running searchdeck with a working shop search

Usage:
  searchdeck demo --zk <host:port/chroot> [flags]     on a SolrCloud (its ZooKeeper connect string)
  searchdeck demo --solr-url <base URL> [flags]       on a standalone Solr (http://host:8983/solr)

Flags (a flag wins over its variable):
  --url <url>             SEARCHDECK_URL               searchdeck's address (default http://127.0.0.1:${defaultPort()})
  --password <password>   SEARCHDECK_ADMIN_PASSWORD    the admin password
  --user <name>           (admin)                      a user with the admin role
  --solr-user <name>      SEARCHDECK_SOLR_USER         Solr's Basic credentials, when Solr asks for them
  --solr-password <pw>    SEARCHDECK_SOLR_PASSWORD
  --collection <name>     (products)                   the Solr collection (or core) of the products
  --app <id>              (shop)                       the app; its cluster, studio and instance are named after it
  --new-key                                            issue a search-only key even when the profile has one

Whatever exists already is left as it is, so running it again changes nothing.
`;

export interface DemoOptions {
  url: string;
  user: string;
  password: string;
  solr: { cloud: true; zk: string } | { cloud: false; url: string };
  solrCredentials: BasicCredentials | undefined;
  collection: string;
  app: string;
  newKey: boolean;
}

function defaultPort(): string {
  return describeSettings().find((s) => s.env === 'SEARCHDECK_PORT')?.default ?? '8764';
}

const APP_ID = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The options from the command line and the environment; a DemoError for a wrong one. */
export function demoOptions(args: string[], env: NodeJS.ProcessEnv): DemoOptions | 'help' {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        user: { type: 'string' },
        password: { type: 'string' },
        zk: { type: 'string' },
        'solr-url': { type: 'string' },
        'solr-user': { type: 'string' },
        'solr-password': { type: 'string' },
        collection: { type: 'string' },
        app: { type: 'string' },
        'new-key': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    throw new DemoError(`${(error as Error).message} (searchdeck demo --help lists the flags)`);
  }
  if (values.help) return 'help';
  const text = (name: string, variable?: string): string | undefined => {
    const value = values[name];
    if (typeof value === 'string' && value !== '') return value;
    const fromEnv = variable === undefined ? undefined : env[variable];
    return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
  };

  const zk = text('zk');
  const solrUrl = text('solr-url');
  if ((zk === undefined) === (solrUrl === undefined)) {
    throw new DemoError(
      'name the Solr to use: --zk <host:port/chroot> for a SolrCloud, or --solr-url <base URL> for a standalone Solr (one of them)',
    );
  }
  if (solrUrl !== undefined && !/^https?:\/\/[^/?#\s]+/.test(solrUrl)) {
    throw new DemoError(`--solr-url must be an http:// or https:// URL, like http://127.0.0.1:8983/solr`);
  }
  const password = text('password', 'SEARCHDECK_ADMIN_PASSWORD');
  if (password === undefined) {
    throw new DemoError(
      'the admin password is needed: --password or SEARCHDECK_ADMIN_PASSWORD (the one searchdeck printed at its first start, or its SEARCHDECK_ADMIN_PASSWORD)',
    );
  }
  const solrUser = text('solr-user', 'SEARCHDECK_SOLR_USER');
  const solrPassword = text('solr-password', 'SEARCHDECK_SOLR_PASSWORD');
  if ((solrUser === undefined) !== (solrPassword === undefined)) {
    throw new DemoError(
      "Solr's credentials go together: give both --solr-user and --solr-password (or SEARCHDECK_SOLR_USER and SEARCHDECK_SOLR_PASSWORD), or neither",
    );
  }
  const app = text('app') ?? 'shop';
  if (!APP_ID.test(app)) {
    throw new DemoError(
      `--app must be 1-40 lowercase letters, digits and inner hyphens (it names a typeahead host): ${app}`,
    );
  }
  const collection = text('collection') ?? 'products';
  if (!COLLECTION_NAME.test(collection)) {
    throw new DemoError(`--collection must be letters, digits, '.', '_' and '-': ${collection}`);
  }
  const url = (text('url', 'SEARCHDECK_URL') ?? `http://127.0.0.1:${defaultPort()}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/?#\s]+$/.test(url)) {
    throw new DemoError(
      `--url (SEARCHDECK_URL) must be searchdeck's http:// or https:// address, like http://127.0.0.1:8764`,
    );
  }
  return {
    url,
    user: text('user') ?? 'admin',
    password,
    solr: zk !== undefined ? { cloud: true, zk } : { cloud: false, url: solrUrl!.replace(/\/+$/, '') },
    solrCredentials: solrUser === undefined ? undefined : { username: solrUser, password: solrPassword! },
    collection,
    app,
    newKey: values['new-key'] === true,
  };
}

/** `searchdeck demo …`: the exit code. Progress goes to `out`, the one failure line to `err`. */
export async function demoCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  let options: DemoOptions | 'help';
  try {
    options = demoOptions(args, env);
  } catch (error) {
    if (!(error instanceof DemoError)) throw error;
    err(`searchdeck demo: ${error.message}`);
    return 2;
  }
  if (options === 'help') {
    out(DEMO_USAGE.trimEnd());
    return 0;
  }
  try {
    await runDemo(options, out);
    return 0;
  } catch (error) {
    if (!(error instanceof DemoError)) throw error;
    err(`searchdeck demo: ${error.message}`);
    return 1;
  }
}

// ---------------------------------------------------------------------------------------------
// The shop's objects.

/** Names of the objects the demo makes in an app. */
export function demoNames(app: string) {
  return { cluster: `${app}-solr`, studio: app, typeahead: app, profile: 'web' };
}

interface RuleSpec {
  externalId: string;
  body: Record<string, unknown>;
}

/** The query the example rules act on, and the products they name (from the sample catalog). */
export const DEMO_QUERY = 'kettle';

/** The products the example rules pin and block: the same on every machine. */
export function demoProducts(): { pinned: Product; blocked: Product; boostedBrand: string } {
  const kettles = [...sampleCatalog(SAMPLE_CATALOG_SIZE)].filter((p) => p.category === 'kettles');
  // A kettle few shoppers look at, so that the pin visibly moves it to the top.
  const pinned = kettles.find((p) => p.in_stock && p.popularity < 50)!;
  // One that cannot be delivered: merchandisers hide those.
  const blocked = kettles.find((p) => !p.in_stock)!;
  return { pinned, blocked, boostedBrand: 'Juniper' };
}

/** `searchdeckUrl`: the banner's picture is one the console serves, so the preview draws it. */
function exampleRules(searchdeckUrl: string): RuleSpec[] {
  const { pinned, blocked, boostedBrand } = demoProducts();
  const forKettle = { queries: [DEMO_QUERY] };
  return [
    {
      externalId: 'demo-pin-kettle',
      body: {
        type: 'pinned',
        name: `Pin ${pinned.name} first for ${DEMO_QUERY}`,
        fieldName: 'id',
        pinnedValues: [{ value: pinned.id, position: 1 }],
        conditions: forKettle,
        tags: ['demo'],
      },
    },
    {
      externalId: 'demo-block-kettle',
      body: {
        type: 'blockList',
        name: `Block ${blocked.name} (out of stock) for ${DEMO_QUERY}`,
        fieldName: 'id',
        fieldValues: [blocked.id],
        conditions: forKettle,
        tags: ['demo'],
      },
    },
    {
      externalId: 'demo-boost-kettle',
      body: {
        type: 'boostList',
        name: `Boost ${boostedBrand} for ${DEMO_QUERY}`,
        fieldName: 'brand',
        fieldValues: [boostedBrand],
        boost: 10,
        conditions: forKettle,
        tags: ['demo'],
      },
    },
    {
      externalId: 'demo-banner-kettle',
      body: {
        type: 'banner',
        name: `Banner for ${DEMO_QUERY}`,
        bannerUrl: `${searchdeckUrl}/console/examples/banner-kettles.svg`,
        zone: 'top',
        conditions: forKettle,
        tags: ['demo'],
      },
    },
    {
      externalId: 'demo-redirect-help',
      body: {
        type: 'redirect',
        name: 'Redirect help to the help pages',
        url: 'https://shop.example/help',
        conditions: { queries: ['help'] },
        tags: ['demo'],
      },
    },
  ];
}

interface RewriteSpec {
  label: string;
  /** The listing's search words that find it. */
  search: string;
  body: Record<string, unknown>;
  matches(rewrite: Record<string, unknown>): boolean;
}

const same = (a: unknown, b: string) => typeof a === 'string' && a.trim().toLowerCase() === b;

function exampleRewrites(): RewriteSpec[] {
  return [
    {
      label: 'synonym laptop ↔ notebook',
      search: 'laptop notebook',
      body: { type: 'synonym', synonyms: ['laptop', 'notebook'], tags: ['demo'] },
      matches: (r) => {
        const terms = Array.isArray(r.synonyms) ? r.synonyms : [];
        return (
          r.type === 'synonym' &&
          (r.input === undefined || r.input === null) &&
          terms.length === 2 &&
          terms.some((t) => same(t, 'laptop')) &&
          terms.some((t) => same(t, 'notebook'))
        );
      },
    },
    {
      label: 'misspelling kettel → kettle',
      search: 'kettel kettle',
      body: { type: 'misspelling', misspelling: 'kettel', correction: 'kettle', tags: ['demo'] },
      matches: (r) =>
        r.type === 'misspelling' && same(r.misspelling, 'kettel') && same(r.correction, 'kettle'),
    },
  ];
}

const TYPEAHEAD_TERMS = ['kettle', 'electric kettle', 'laptop', 'notebook', 'coffee machine', 'headphones'];

// ---------------------------------------------------------------------------------------------
// The run.

interface Answer {
  status: number;
  body: unknown;
}

/** Fills searchdeck; prints one line per object and, at the end, where to look. */
export async function runDemo(options: DemoOptions, out: (line: string) => void): Promise<void> {
  const api = new SearchdeckClient(options.url);
  await api.signIn(options.user, options.password);
  out(`searchdeck at ${options.url}: signed in as ${options.user}`);
  try {
    await fill(api, options, out);
  } finally {
    await api.signOut();
  }
}

async function fill(api: SearchdeckClient, options: DemoOptions, out: (line: string) => void): Promise<void> {
  const { app, collection } = options;
  const names = demoNames(app);
  const appPath = `/api/apps/${app}`;

  // The app exists through the objects in its context; the cluster below is the first.
  const apps = (await api.expect('GET', '/api/apps', undefined, [200])).body as Array<{ id: string }>;
  const appThere = apps.some((a) => a.id === app);

  // A standalone Solr's core is made by whoever runs that Solr: without it nothing is made here.
  const standaloneCount = options.solr.cloud ? undefined : await coreCount(options.solr.url, options);

  // The search cluster, checked against the real Solr before it is stored.
  const clusterPath = `${appPath}/searchCluster/${names.cluster}`;
  await ensureCluster(api, options, out);
  out(`app ${app}: ${appThere ? 'already there' : 'created, by putting the search cluster in its context'}`);

  // The products in Solr.
  if (options.solr.cloud) {
    const nodes = (await api.expect('GET', `${clusterPath}/nodes`, undefined, [200])).body as Array<{
      name: string;
      baseUrl: string;
    }>;
    if (nodes.length === 0) {
      throw new DemoError(`the SolrCloud at ${options.solr.zk} has no live node: is Solr running?`);
    }
    const solrUrl = nodes[0]!.baseUrl;
    const solr = new SolrCollections(solrUrl, options.solrCredentials);
    const made = await onSolr(solrUrl, () =>
      ensureProductsCollection(solr, collection, () => sampleCatalog(SAMPLE_CATALOG_SIZE), {
        // A replica on each live node (at most three), so that one node going away loses nothing.
        replicas: Math.min(nodes.length, 3),
      }),
    );
    if (!made.created && made.indexed === 0) {
      out(`collection ${collection}: already there, ${made.count} documents`);
    } else {
      const how = made.created
        ? `created from configset products${made.configsetUploaded ? ' (uploaded now)' : ''}`
        : 'already there, empty';
      out(`collection ${collection}: ${how}; ${made.indexed} sample products indexed`);
    }
  } else if (standaloneCount! > 0) {
    out(`core ${collection}: already there, ${standaloneCount} documents`);
  } else {
    const solrUrl = options.solr.url;
    const solr = new SolrCollections(solrUrl, options.solrCredentials);
    const indexed = await onSolr(solrUrl, () => solr.index(collection, sampleCatalog(SAMPLE_CATALOG_SIZE)));
    out(`core ${collection}: already there, empty; ${indexed} sample products indexed`);
  }

  // The studio, in the app's context.
  const studioPath = `/api/studios/${names.studio}`;
  const studio = await api.call('GET', studioPath);
  if (studio.status === 404) {
    await api.expect('POST', '/api/studios', { id: names.studio, name: `${app} (demo)` }, [201]);
    out(`studio ${names.studio}: created`);
  } else if (studio.status === 200) {
    out(`studio ${names.studio}: already there`);
  } else {
    throw unexpected(`GET ${studioPath}`, studio);
  }
  await ensureInApp(api, `studio:${names.studio}`, app);

  // Rules, published live (through the studio's own paths, which take the session).
  const rulesPath = `/studios/${names.studio}/em-rules`;
  for (const rule of exampleRules(options.url)) {
    const label = `rule "${rule.body.name}"`;
    const found = await api.call('GET', `${rulesPath}/${rule.externalId}`);
    if (found.status === 404) {
      const created = await api.expect(
        'POST',
        rulesPath,
        { ...rule.body, externalId: rule.externalId },
        [201],
      );
      await api.expect(
        'POST',
        `${rulesPath}/${(created.body as { id: string }).id}/publish`,
        undefined,
        [200],
      );
      out(`${label}: created and published`);
    } else if (found.status === 200) {
      out(`${label}: ${await publishIfDraft(api, rulesPath, found.body as Published)}`);
    } else {
      throw unexpected(`GET ${rulesPath}/${rule.externalId}`, found);
    }
  }

  // Rewrites, published live. They have no external id: found by their terms.
  const rewritesPath = `/studios/${names.studio}/query-rewrites`;
  for (const rewrite of exampleRewrites()) {
    const query = new URLSearchParams({ searchQuery: rewrite.search, size: '1000' });
    const page = (await api.expect('GET', `${rewritesPath}?${query}`, undefined, [200])).body as {
      content: Array<Record<string, unknown>>;
    };
    const found = page.content.find((r) => rewrite.matches(r));
    if (found === undefined) {
      const created = await api.expect('POST', rewritesPath, rewrite.body, [201]);
      await api.expect(
        'POST',
        `${rewritesPath}/${(created.body as { id: string }).id}/publish`,
        undefined,
        [200],
      );
      out(`rewrite ${rewrite.label}: created and published`);
    } else {
      out(
        `rewrite ${rewrite.label}: ${await publishIfDraft(api, rewritesPath, found as unknown as Published)}`,
      );
    }
  }

  // The typeahead instance, in the app's context.
  const instancePath = `/api/typeahead/instances/${names.typeahead}`;
  const instance = await api.call('GET', instancePath);
  let embedToken: string | undefined;
  if (instance.status === 404) {
    const created = await api.expect(
      'POST',
      '/api/typeahead/instances',
      { id: names.typeahead, name: `${app} (demo)` },
      [200, 201],
    );
    embedToken = (created.body as { embedToken: string }).embedToken;
    await api.expect('PUT', `${instancePath}/terms`, { included: TYPEAHEAD_TERMS, excluded: [] }, [200]);
    out(
      `typeahead instance ${names.typeahead}: created, with ${TYPEAHEAD_TERMS.length} terms; embed token (shown once): ${embedToken}`,
    );
  } else if (instance.status === 200) {
    out(
      `typeahead instance ${names.typeahead}: already there (its embed token was shown when it was created; POST ${instancePath}/embed-token issues a new one)`,
    );
  } else {
    throw unexpected(`GET ${instancePath}`, instance);
  }
  await ensureInApp(api, `typeahead:${names.typeahead}`, app);

  // The query profile and its search-only key.
  const profilePath = `${appPath}/query-profiles/${names.profile}`;
  const profile = await api.call('GET', profilePath);
  if (profile.status === 404) {
    await api.expect(
      'POST',
      `${appPath}/query-profiles`,
      {
        id: names.profile,
        searchCluster: names.cluster,
        collection,
        studio: names.studio,
        typeahead: names.typeahead,
        defaults: { rows: 10, fl: 'id,name,brand,category,price,in_stock' },
        allowedParams: ['rows', 'start', 'fq', 'sort', 'fl'],
      },
      [200, 201],
    );
    out(`query profile ${app}/${names.profile}: created (collection ${collection})`);
  } else if (profile.status === 200) {
    const stored = profile.body as { collection: string; searchCluster: string };
    const differs =
      stored.collection !== collection || stored.searchCluster !== names.cluster
        ? ` (it queries ${stored.searchCluster}/${stored.collection}, not ${names.cluster}/${collection}: left as it is)`
        : '';
    out(`query profile ${app}/${names.profile}: already there${differs}`);
  } else {
    throw unexpected(`GET ${profilePath}`, profile);
  }
  const keys = (await api.expect('GET', `${profilePath}/keys`, undefined, [200])).body as unknown[];
  let key: string | undefined;
  if (keys.length === 0 || options.newKey) {
    key = ((await api.expect('POST', `${profilePath}/keys`, undefined, [200, 201])).body as { key: string })
      .key;
    out(`search-only key: created (shown once): ${key}`);
  } else {
    out(
      `search-only key: already there (${keys.length}; a key is shown only when it is created: --new-key issues another)`,
    );
  }

  const queryUrl = `${options.url}${appPath}/query/${names.profile}?q=${DEMO_QUERY}`;
  out('');
  out(`The console (sign in as ${options.user}), the query workbench of the profile:`);
  out(`  ${options.url}/console/query-profiles?app=${app}&profile=${names.profile}`);
  out(`A shopper's query, "${DEMO_QUERY}", with its rules applied (the pinned product first, a banner):`);
  out(`  curl -H 'Authorization: Bearer ${key ?? '<the search-only key>'}' '${queryUrl}'`);
  if (embedToken !== undefined) {
    out('Typeahead suggestions for a search box:');
    out(
      `  curl -H 'Authorization: Embed ${embedToken}' '${options.url}/typeahead/suggestions?prefix=ke&limit=5'`,
    );
  }
}

/** The search cluster: created with the check first, or found and checked again now. */
async function ensureCluster(
  api: SearchdeckClient,
  options: DemoOptions,
  out: (line: string) => void,
): Promise<void> {
  const { cluster: id } = demoNames(options.app);
  const appPath = `/api/apps/${options.app}`;
  const path = `${appPath}/searchCluster/${id}`;
  const connectString = options.solr.cloud ? options.solr.zk : options.solr.url;
  const existing = await api.call('GET', path);
  if (existing.status === 200) {
    const cluster = existing.body as { connectString: string; cloud: boolean };
    if (cluster.connectString !== connectString || cluster.cloud !== options.solr.cloud) {
      throw new DemoError(
        `search cluster ${id} exists already for ${cluster.connectString}, not ${connectString}: give another --app, or delete it first (DELETE ${path}?force=true)`,
      );
    }
    await checkCluster(api, 'GET', `${path}/status`, undefined, id);
    out(`search cluster ${id}: already there (${connectString}), checked now`);
    return;
  }
  if (existing.status !== 404) throw unexpected(`GET ${path}`, existing);
  const body = {
    id,
    connectString,
    cloud: options.solr.cloud,
    // A demo should say soon that ZooKeeper cannot be reached; the default waits a minute.
    ...(options.solr.cloud ? { zkConnectTimeout: 10_000 } : {}),
    authConfig: options.solrCredentials
      ? { authType: 'BASIC', ...options.solrCredentials }
      : { authType: 'NONE' },
  };
  await checkCluster(api, 'POST', `${appPath}/searchCluster?validate=true`, body, id);
  out(`search cluster ${id}: created, checked with ?validate=true (${connectString})`);
}

/** The documents of a standalone Solr's core; a DemoError saying how to make it when it is missing. */
async function coreCount(solrUrl: string, options: DemoOptions): Promise<number> {
  const solr = new SolrCollections(solrUrl, options.solrCredentials);
  const count = await onSolr(solrUrl, async () => {
    try {
      return await solr.count(options.collection);
    } catch (error) {
      if (error instanceof SolrAdminError && error.status === 404) return undefined;
      throw error;
    }
  });
  if (count !== undefined) return count;
  const configset = dirname(productsConfigsetDirectory());
  throw new DemoError(
    `Solr at ${solrUrl} has no core ${options.collection}: create it from the products configset (${configset}), e.g. bin/solr create -c ${options.collection} -d ${configset} on that Solr's machine, or with Docker solr-precreate ${options.collection} <that directory, mounted>; then run the demo again`,
  );
}

interface Published {
  id: string;
  publishState: 'DRAFT' | 'PUBLISHED' | 'PUBLISHED_WITH_DRAFT_EDITS';
}

/** "already there", publishing a rule or rewrite that was left a draft (a run stopped halfway). */
async function publishIfDraft(api: SearchdeckClient, path: string, item: Published): Promise<string> {
  if (item.publishState === 'DRAFT') {
    await api.expect('POST', `${path}/${item.id}/publish`, undefined, [200]);
    return 'already there as a draft; published now';
  }
  if (item.publishState === 'PUBLISHED_WITH_DRAFT_EDITS')
    return 'already there, live (with unpublished edits, left as they are)';
  return 'already there, live';
}

/** Puts an object into the app's context, unless it is there already. */
async function ensureInApp(api: SearchdeckClient, object: string, app: string): Promise<void> {
  const link = { subject: object, object: `app:${app}`, linkType: 'inContextOf' };
  const there = await api.expect('GET', `/api/links/check?${new URLSearchParams(link)}`, undefined, [200]);
  if (there.body === true) return;
  await api.expect('PUT', '/api/links', link, [200]);
}

/** Runs the cluster check (creating or reading); its failure becomes one line in plain words. */
async function checkCluster(
  api: SearchdeckClient,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  id: string,
): Promise<void> {
  const answer = await api.call(method, path, body, CHECK_TIMEOUT_MS);
  if (answer.status === 200) return;
  const error = answer.body as { code?: string; message?: string } | undefined;
  if (answer.status === 400 && error?.message?.startsWith('check step ')) {
    throw new DemoError(`the check of search cluster ${id} failed, so Solr cannot be used: ${error.message}`);
  }
  throw unexpected(`${method} ${path}`, answer);
}

/** Solr's own failures, and Solr not answering, as one line. */
async function onSolr<T>(url: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SolrAdminError) throw new DemoError(`Solr at ${url}: ${error.message}`);
    const problem = networkProblem(error);
    if (problem !== undefined)
      throw new DemoError(`Solr is not reachable at ${url} (${problem}): is it running?`);
    throw error;
  }
}

/** What kept a request from reaching its server, in words; undefined for any other error. */
function networkProblem(error: unknown): string | undefined {
  const words: Record<string, string> = {
    ECONNREFUSED: 'nothing is listening there',
    ENOTFOUND: 'the host name does not resolve',
    EAI_AGAIN: 'the host name does not resolve',
    ECONNRESET: 'the connection was cut',
    EHOSTUNREACH: 'the host cannot be reached',
    ENETUNREACH: 'the network cannot be reached',
    ETIMEDOUT: 'no answer in time',
    UND_ERR_CONNECT_TIMEOUT: 'no answer in time',
    UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
    UND_ERR_SOCKET: 'the connection was cut',
  };
  let deepest: string | undefined;
  for (
    let e = error as { code?: unknown; cause?: unknown; name?: unknown; message?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (e.name === 'TimeoutError') return 'no answer in time';
    if (typeof e.code === 'string' && /^(E[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(e.code))
      return words[e.code] ?? e.code;
    if (typeof e.message === 'string') deepest = e.message;
  }
  return error instanceof TypeError ? deepest : undefined;
}

function unexpected(request: string, answer: Answer): DemoError {
  const message = (answer.body as { message?: unknown } | undefined)?.message;
  return new DemoError(
    `searchdeck answered ${request} with ${answer.status}${typeof message === 'string' ? `: ${message}` : ''}`,
  );
}

// ---------------------------------------------------------------------------------------------
// searchdeck over HTTP, as a signed-in user: the session works for the Administrative API and
// for a studio's rules and rewrites, so no API client (whose secret is shown once) is needed.

const REQUEST_TIMEOUT_MS = 30_000;
// The check waits for ZooKeeper up to the cluster's zkConnectTimeout.
const CHECK_TIMEOUT_MS = 90_000;

class SearchdeckClient {
  #cookie: string | undefined;
  #csrf: string | undefined;

  constructor(private readonly url: string) {}

  async signIn(username: string, password: string): Promise<void> {
    const answer = await this.call('POST', '/api/session', { username, password });
    if (answer.status === 401) {
      throw new DemoError(
        `searchdeck at ${this.url} refused the password of ${username}: give the admin password with --password or SEARCHDECK_ADMIN_PASSWORD`,
      );
    }
    if (answer.status === 429) {
      throw new DemoError(
        `searchdeck at ${this.url} refuses sign-ins from this address for now, after too many wrong passwords: wait a minute and try again`,
      );
    }
    const session = answer.body as { role?: string; csrfToken?: string } | undefined;
    if (answer.status !== 200 || !this.#cookie || typeof session?.csrfToken !== 'string') {
      throw new DemoError(
        `${this.url} does not answer as searchdeck (signing in answered ${answer.status}): is --url (SEARCHDECK_URL) its address?`,
      );
    }
    this.#csrf = session.csrfToken;
    if (session.role !== 'admin') {
      await this.signOut();
      throw new DemoError(
        `${username} has the role ${session.role}; the demo needs a user with the admin role`,
      );
    }
  }

  async signOut(): Promise<void> {
    if (this.#cookie === undefined) return;
    await this.call('DELETE', '/api/session').catch(() => undefined);
    this.#cookie = undefined;
  }

  /** An answer of the given statuses, else a DemoError naming the request and searchdeck's message. */
  async expect(method: string, path: string, body: unknown, statuses: number[]): Promise<Answer> {
    const answer = await this.call(method, path, body);
    if (!statuses.includes(answer.status)) throw unexpected(`${method} ${path.split('?')[0]}`, answer);
    return answer;
  }

  async call(method: string, path: string, body?: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.#cookie) headers.cookie = this.#cookie;
    if (this.#csrf) headers['x-csrf-token'] = this.#csrf;
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const problem = networkProblem(error) ?? (error as Error).message;
      throw new DemoError(
        `searchdeck is not reachable at ${this.url} (${problem}): start it (npm start), or give its address with --url or SEARCHDECK_URL`,
      );
    }
    const session = response.headers
      .getSetCookie()
      .map((cookie) => cookie.split(';')[0]!)
      .find((pair) => pair.startsWith('searchdeck_session='));
    if (session !== undefined) this.#cookie = session;
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed };
  }
}
