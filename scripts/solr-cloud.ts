// Starts the project's SolrCloud (solr/): Maven resolves Solr's jars from solr/pom.xml into the
// user's Maven repository and prints their class path, javac compiles the launcher, and java
// runs it. Both results are kept under node_modules/.cache, keyed by the pom's and the
// source's content, so a later start costs only the JVM's own start (a few seconds).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SOLR_DIR = join(root, 'solr');
const POM = join(SOLR_DIR, 'pom.xml');
const SOURCE = join(SOLR_DIR, 'src', 'main', 'java', 'dev', 'searchdeck', 'solr', 'SolrCloudLauncher.java');
const CACHE = join(root, 'node_modules', '.cache', 'searchdeck', 'solr');
const MAIN_CLASS = 'dev.searchdeck.solr.SolrCloudLauncher';
const READY_TIMEOUT_MS = 180_000;

/** The user the project's security.json knows (Solr's documented example credentials). */
export const SOLR_CREDENTIALS = Object.freeze({ username: 'solr', password: 'SolrRocks' });
export const PRODUCTS_CONFIGSET = join(SOLR_DIR, 'configsets', 'products', 'conf');

export interface SolrNode {
  /** `node1`, `node2`, … in the order started. */
  name: string;
  /** The node's base URL, `http://127.0.0.1:<port>/solr`. */
  url: string;
  /** Its name in ZooKeeper's live_nodes, `127.0.0.1:<port>_solr`. */
  nodeName: string;
  running: boolean;
}

export interface SolrCloudAddress {
  /** The ZooKeeper connect string with Solr's chroot, `127.0.0.1:<port>/solr`. */
  zk: string;
  /** The launcher's control address (loopback). */
  control: string;
  nodes: SolrNode[];
  /** Solr's log. */
  logFile: string;
}

export interface SolrCloud extends SolrCloudAddress {
  /** The JVM's process id. */
  pid: number;
  /** Stops the JVM and waits for it to exit. */
  stop(): Promise<void>;
}

/** What is missing on this machine to start Solr (java 17+, Maven), or undefined. */
export function solrPrerequisiteMissing(): string | undefined {
  for (const command of ['java', 'javac', 'mvn']) {
    if (!onPath(command)) return `${command} is not on the PATH (Solr needs Java 17 or later and Maven)`;
  }
  const version = javaVersion();
  if (version !== undefined && version < 17) return `java is version ${version}; Solr needs Java 17 or later`;
  return undefined;
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && existsSync(join(dir, command)));
}

function javaVersion(): number | undefined {
  try {
    const out = execFileSync('java', ['-version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return parseJavaVersion(out);
  } catch (error) {
    return parseJavaVersion(String((error as { stderr?: string }).stderr ?? ''));
  }
}

function parseJavaVersion(text: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(text);
  if (!match) return undefined;
  return match[1] === '1' ? Number(match[2]) : Number(match[1]);
}

function digest(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16);
}

/**
 * Resolves Solr's jars (Maven; the first time downloads them) and compiles the launcher, each
 * only when its input changed. Returns the class path to run the launcher with.
 */
export function prepareSolr(log: (line: string) => void = () => {}): string {
  const missing = solrPrerequisiteMissing();
  if (missing) throw new Error(`cannot start Solr: ${missing}`);
  mkdirSync(CACHE, { recursive: true });
  const classpathFile = join(CACHE, `classpath-${digest(POM)}.txt`);
  if (!existsSync(classpathFile)) {
    log('resolving Solr with Maven (the first time downloads about 250 MB)…');
    const partial = `${classpathFile}.partial`;
    run('mvn', ['-q', '-B', '-f', POM, 'dependency:build-classpath', `-Dmdep.outputFile=${partial}`]);
    writeFileSync(classpathFile, readFileSync(partial));
    rmSync(partial);
  }
  const jars = readFileSync(classpathFile, 'utf8').trim();
  const classes = join(CACHE, `classes-${digest(SOURCE)}`);
  if (!existsSync(join(classes, 'dev'))) {
    log('compiling the Solr launcher…');
    const partial = mkdtempSync(join(CACHE, 'classes-'));
    run('javac', ['-d', partial, '-cp', jars, SOURCE]);
    rmSync(classes, { recursive: true, force: true });
    execFileSync('mv', [partial, classes]);
  }
  return `${classes}${delimiter}${jars}`;
}

/** Runs a build command quietly; when it fails, the error carries what it printed. */
function run(command: string, args: string[]): void {
  try {
    execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} failed:\n${`${stdout}\n${stderr}`.trim()}`);
  }
}

export interface SolrCloudOptions {
  /** The first node's port; the others follow it. 0 (default): free ports. */
  port?: number;
  nodes?: number;
  /** Where Solr keeps its data (under cloud/) and log (logs/); a temporary one when absent. */
  dir?: string;
  /** Ends the JVM when this process ends, instead of when its standard input closes. */
  watchPid?: number;
  /** The JVM's heap. */
  heap?: string;
  log?: (line: string) => void;
}

/** Starts the SolrCloud and resolves once every node is live, with its addresses. */
export async function startSolrCloud(options: SolrCloudOptions = {}): Promise<SolrCloud> {
  const classpath = prepareSolr(options.log);
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'searchdeck-solr-'));
  // The JVM removes a temporary directory itself when it exits, whoever ends it.
  const logDir = join(dir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const args = [
    `-Xmx${options.heap ?? '768m'}`,
    '-XX:+UseSerialGC',
    `-Dsolr.log.dir=${logDir}`,
    `-Dlog4j2.configurationFile=${join(SOLR_DIR, 'log4j2.xml')}`,
    '-cp',
    classpath,
    MAIN_CLASS,
    '--port',
    String(options.port ?? 0),
    '--nodes',
    String(options.nodes ?? 2),
    '--security',
    join(SOLR_DIR, 'security.json'),
    '--configset',
    `products=${PRODUCTS_CONFIGSET}`,
    '--dir',
    dir,
  ];
  if (options.dir === undefined) args.push('--temporary');
  if (options.watchPid !== undefined) args.push('--watch-pid', String(options.watchPid));
  const stderrFile = join(logDir, 'launcher.err');
  const child = spawn('java', args, {
    stdio: [options.watchPid === undefined ? 'pipe' : 'ignore', 'pipe', openSync(stderrFile, 'w')],
    detached: options.watchPid !== undefined,
  });
  const address = await readyLine(child, stderrFile, join(logDir, 'solr.log'));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  if (options.watchPid !== undefined) {
    // The JVM lives on its own: nothing of it keeps this process running.
    child.stdout!.destroy();
    child.unref();
  }
  return {
    ...address,
    pid: child.pid!,
    async stop() {
      if (child.stdin) child.stdin.end();
      else child.kill('SIGTERM');
      await exited;
    },
  };
}

function readyLine(child: ChildProcess, stderrFile: string, logFile: string): Promise<SolrCloudAddress> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Solr was not ready within ${READY_TIMEOUT_MS} ms; its log: ${logFile}`));
    }, READY_TIMEOUT_MS);
    lines.on('line', (line) => {
      if (!line.startsWith('ready ')) return;
      clearTimeout(timer);
      lines.close();
      child.stdout!.resume();
      const ready = JSON.parse(line.slice('ready '.length)) as Omit<SolrCloudAddress, 'logFile'>;
      resolve({ ...ready, logFile });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      let detail = '';
      try {
        detail = readFileSync(stderrFile, 'utf8').trim().split('\n').slice(-15).join('\n');
      } catch {}
      reject(new Error(`Solr's launcher exited (${code}) before it was ready:\n${detail}\nlog: ${logFile}`));
    });
  });
}

/** The launcher's control: the nodes now, or after stopping, starting or adding one. */
export async function controlNodes(
  control: string,
  action?: { add: true } | { stop: string } | { start: string },
): Promise<SolrNode[]> {
  let path = '/nodes';
  if (action && 'stop' in action) path += `/${action.stop}/stop`;
  if (action && 'start' in action) path += `/${action.start}/start`;
  const response = await fetch(control + path, { method: action ? 'POST' : 'GET' });
  const nodes = (await response.json()) as SolrNode[];
  if (!response.ok) throw new Error(`the Solr launcher could not do ${path} (${response.status})`);
  return nodes;
}
