// What the console's browser tests and `npm run screenshots` share: the console built, the
// real service started on SQLite with some content, and Debian's Chromium driven by
// playwright-core.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core';
import { atLaneEnd, inLane } from './lane-runner.js';
import { type ServiceProcess, startService } from './process.js';
import { solrSkipReason, type TestSolr, testSolr } from './solr.js';

export const CHROMIUM = '/usr/bin/chromium';
export const ADMIN = { username: 'admin', password: 'console-admin-password' };
export const MERCHANDISER = { username: 'mira', password: 'mira-password-1' };

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Why the browser tests cannot run here (undefined: they can). Under CI=true a missing browser is a failure. */
export function browserSkipReason(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM} is missing; .ci/run installs it (apt-get install chromium)`);
  return `${CHROMIUM} is not installed (apt-get install chromium); set CI=true to make this a failure`;
}

function newest(dir: string): number {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    time = Math.max(time, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return time;
}

/** Builds console/dist when it is missing or older than its sources (`npm install` builds it too). */
export function ensureConsoleBuilt(): void {
  const index = join(root, 'console', 'dist', 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newest(join(root, 'console', 'src'))) return;
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', 'console', '--logLevel', 'warn'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}

let laneChromium: Promise<Browser> | undefined;

/**
 * A Chromium for one file's tests. In a lane (whose files run one after another in one
 * process) every file gets the same one, closed when the lane ends: a launch costs a second or
 * two, and each test opens a context of its own anyway. A file run alone gets its own, closed by
 * `release`.
 */
export async function chromiumForFile(): Promise<{ browser: Browser; release(): Promise<void> }> {
  if (!inLane()) {
    const browser = await launchChromium();
    return { browser, release: () => browser.close() };
  }
  if (!laneChromium) {
    laneChromium = launchChromium();
    const launched = laneChromium;
    atLaneEnd(async () => (await launched).close());
  }
  const browser = await laneChromium;
  // Contexts a file left open are closed with it, so the next file starts with none.
  return {
    browser,
    release: async () => Promise.all(browser.contexts().map((c) => c.close())).then(() => {}),
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export interface ConsoleService {
  service: ServiceProcess;
  url: string;
  /** A request to the Administrative API (or any other) as admin, with Basic auth. */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
}

let laneSpare: Promise<ConsoleService> | undefined;

/**
 * The real service on a fresh SQLite database, as `npm start` runs it. A start takes seconds
 * (loading the modules, compiling the routes' schemas, migrating), all before the file's first
 * test; so in a lane the service for the lane's next console file starts while this file's
 * tests run, each service still on a database of its own that no other file used. The one left
 * over is stopped when the lane ends.
 */
export async function startConsoleService(): Promise<ConsoleService> {
  if (!inLane()) return launchConsoleService();
  if (!laneSpare) atLaneEnd(async () => (await laneSpare?.catch(() => undefined))?.stop());
  const service = laneSpare ?? launchConsoleService();
  laneSpare = launchConsoleService();
  // A spare that failed to start fails the file that takes it, not the lane before then.
  laneSpare.catch(() => {});
  return service;
}

async function launchConsoleService(): Promise<ConsoleService> {
  ensureConsoleBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-console-'));
  const service = await startService({
    SEARCHDECK_DATA_DIR: dataDir,
    SEARCHDECK_ADMIN_PASSWORD: ADMIN.password,
    SEARCHDECK_LOG_LEVEL: 'warn',
  });
  const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
  return {
    service,
    url: service.url,
    admin: async (method, path, body) => {
      const answer = await fetch(`${service.url}${path}`, {
        method,
        headers: {
          authorization: basic,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await answer.text();
      return { status: answer.status, body: text ? JSON.parse(text) : undefined };
    },
    stop: async () => {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Studios, a merchandiser, a typeahead instance, links and a search cluster to look at. */
export async function seed(service: ConsoleService): Promise<{ usersExist: boolean }> {
  const must = async (method: string, path: string, body?: unknown) => {
    const answer = await service.admin(method, path, body);
    if (answer.status >= 300)
      throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  await must('POST', '/api/studios', { id: 'shop', name: 'Shop' });
  await must('POST', '/api/studios', { id: 'outlet', name: 'Outlet' });
  await must('POST', '/api/typeahead/instances', { id: 'shop-en', name: 'Shop (English)' });
  await must('PUT', '/api/typeahead/instances/shop-en/terms', { included: ['Elastic band'], excluded: [] });
  await must('PUT', '/api/links', { subject: 'datasource:web', object: 'parser:web', linkType: 'dependsOn' });
  await must('PUT', '/api/links', { subject: 'app:shop', object: 'datasource:web', linkType: 'hasPart' });
  // Nothing listens there: the check fails at its first step and shows it with its timing. The
  // ZooKeeper client tries again until the time-out, so the check (and each test that runs it)
  // takes all of it: 200 ms, since no wait can make it pass.
  await must('POST', '/api/searchCluster', {
    id: 'products',
    connectString: '127.0.0.1:1/solr',
    zkConnectTimeout: 200,
  });
  const user = await service.admin('POST', '/api/users', {
    ...MERCHANDISER,
    role: 'merchandiser',
    studios: ['shop'],
    typeaheadInstances: ['shop-en'],
  });
  return { usersExist: user.status === 201 || user.status === 200 };
}

export interface SeededConsole {
  service: ConsoleService;
  browser: Browser;
  /** Whether the merchandiser could be created (false before users exist). */
  usersExist: boolean;
}

/**
 * The seeded service and a Chromium, started before the calling file's tests and stopped
 * after them; nothing starts where browser tests are skipped. Read its fields inside tests.
 */
export function seededConsole(): SeededConsole {
  const state = { usersExist: false } as SeededConsole;
  let release = async () => {};
  before(async () => {
    if (browserSkipReason()) return;
    let chromium: Awaited<ReturnType<typeof chromiumForFile>>;
    [state.service, chromium] = await Promise.all([startConsoleService(), chromiumForFile()]);
    ({ browser: state.browser, release } = chromium);
    state.usersExist = (await seed(state.service)).usersExist;
  });
  after(async () => {
    await release();
    await state.service?.stop();
  });
  return state;
}

export interface ConsoleBesideSolr {
  service: ConsoleService;
  browser: Browser;
  solr: TestSolr;
  /** Why the file's tests skip (no Chromium or no SolrCloud, outside CI); undefined when they run. */
  skip: string | undefined;
}

/**
 * A fresh, unseeded service (an empty install), a Chromium and the test run's SolrCloud,
 * started before the calling file's tests and stopped after them; nothing starts where the
 * tests skip. Read its fields inside tests.
 */
export function freshConsoleBesideSolr(): ConsoleBesideSolr {
  const state = { skip: browserSkipReason() ?? solrSkipReason() } as ConsoleBesideSolr;
  let release = async () => {};
  before(async () => {
    if (state.skip) return;
    let chromium: Awaited<ReturnType<typeof chromiumForFile>>;
    [state.service, state.solr, chromium] = await Promise.all([
      startConsoleService(),
      testSolr(),
      chromiumForFile(),
    ]);
    ({ browser: state.browser, release } = chromium);
  });
  after(async () => {
    await release();
    await state.service?.stop();
  });
  return state;
}

// The minified build: the same code as the package's `source` (axe.js), in less than half the
// bytes, which every document it is injected into sends over and compiles again.
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the page as it is now: no serious or critical violation. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  // Once per document: a page the console's own links went on to keeps it.
  if (await page.evaluate("typeof globalThis.axe === 'undefined'"))
    await page.addScriptTag({ content: axeSource });
  // A toast or dialog still fading in has the contrast of its first frames: let it arrive.
  await page.evaluate(`Promise.all(document.getAnimations()
    .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
    .map((a) => a.finished.catch(() => {})))`);
  const violations = await page.evaluate(async () => {
    const result = await (
      globalThis as unknown as {
        axe: {
          run(options: {
            resultTypes: string[];
          }): Promise<{ violations: { id: string; impact: string; help: string }[] }>;
        };
      }
    ).axe.run({
      // Every violation is still found and listed; the passes and other results, which are not
      // read here, keep one element each instead of a selector worked out for every element.
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `${what}: ${JSON.stringify(bad)}`);
}

/**
 * Goes to a console address (`/rules?studio=shop`) as the console's own links do, without
 * loading the page again: quicker than `page.goto` where a test tours many pages.
 */
export async function goWithin(page: Page, path: string): Promise<void> {
  const url = JSON.stringify(`/console${path}`);
  // React renders what the event changed in a task it posts as a message: one message posted
  // after it, and a frame, come once the new page is on the screen.
  await page.evaluate(`(async () => {
    history.pushState(null, '', ${url});
    dispatchEvent(new PopStateEvent('popstate'));
    await new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = resolve;
      channel.port2.postMessage(0);
    });
    await new Promise((resolve) => requestAnimationFrame(resolve));
  })()`);
}

/** Signs in through the console's form and waits for the main navigation (shown or not). */
export async function signIn(
  page: Page,
  url: string,
  who: { username: string; password: string },
): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Username').fill(who.username);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // On a narrow screen the navigation is there but hidden behind the burger.
  await page.getByRole('navigation', { name: 'Main', includeHidden: true }).waitFor({ state: 'attached' });
}

/**
 * A new browser context already signed in as `who`: the session is opened through the request
 * the sign-in form sends (`POST /api/session`), so its cookie is the context's. For a test that
 * signing in is only the way in to: it spares loading the console once more and the form's round
 * trip (the form itself is tested in console.test.ts and shell.test.ts).
 */
export async function signedInContext(
  browser: Browser,
  url: string,
  who: { username: string; password: string },
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  const answer = await context.request.post(`${url}/api/session`, { data: who });
  if (answer.status() !== 200) {
    await context.close();
    throw new Error(`signing in as ${who.username}: ${answer.status()} ${await answer.text()}`);
  }
  return context;
}

/** The session's CSRF token, for requests the test makes beside the console's own. */
export async function csrfTokenOf(page: Page, url: string): Promise<string> {
  const answer = await page.request.get(`${url}/api/session`);
  return ((await answer.json()) as { csrfToken: string }).csrfToken;
}

export interface EchoingSolr {
  /** The node's Solr URL, for a standalone search cluster. */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * A real HTTP server playing a Solr node's select handler: it echoes the form parameters it
 * received in `responseHeader.params` (as Solr's `echoParams=all` does) and finds two kettles.
 */
export async function startEchoingSolr(): Promise<EchoingSolr> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const params: Record<string, string | string[]> = {};
      for (const name of new Set(form.keys())) {
        const values = form.getAll(name);
        params[name] = values.length === 1 ? (values[0] ?? '') : values;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          responseHeader: { status: 0, QTime: 3, params },
          response: {
            numFound: 2,
            start: 0,
            docs: [
              { id: 'K-1', name: 'Electric kettle' },
              { id: 'K-2', name: 'Stove kettle' },
            ],
          },
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/solr`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
