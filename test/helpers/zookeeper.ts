import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  accessSync,
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connectZooKeeper } from '../../src/clusters/zookeeper.js';

// Where Debian's `zookeeper` package puts the server; its manifest carries the rest of the classpath.
const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
const ZOOKEEPER_CONF_DIR = '/etc/zookeeper/conf';
const SERVER_MAIN = 'org.apache.zookeeper.server.ZooKeeperServerMain';
// A small heap and the quick JIT tier: the server idles in tests, and the machines are shared.
const JVM_OPTIONS = ['-Xmx128m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];
const START_TIMEOUT_MS = 30_000;

export interface ZooKeeperServer {
  /** `127.0.0.1:port`, without chroot. */
  connectString: string;
  /**
   * The ids of the sessions the server holds now, as its `dump` command lists them: a session
   * stays there, connected or not, until it is closed or expires.
   */
  sessions(): Promise<Set<string>>;
  stop(): Promise<void>;
}

/**
 * Why tests needing ZooKeeper must be skipped here, or undefined when they can run. Under
 * `CI=true` a missing ZooKeeper is never a reason to skip: the tests run and fail.
 */
export function zooKeeperSkipReason(): string | undefined {
  if (process.env.CI === 'true') return undefined;
  const missing = missingPrerequisite();
  return missing && `needs a local ZooKeeper server: ${missing} (install Debian's zookeeper package)`;
}

function missingPrerequisite(): string | undefined {
  if (!isReadable(ZOOKEEPER_JAR)) return `${ZOOKEEPER_JAR} is missing`;
  const path = process.env.PATH ?? '';
  if (!path.split(delimiter).some((dir) => dir && isExecutable(join(dir, 'java'))))
    return 'java is not on the PATH';
  return undefined;
}

/**
 * Starts a standalone ZooKeeper on a free loopback port with a temporary data directory.
 * `tickTimeMs` (default 2000) sets the shortest session timeout it grants: two ticks.
 */
export async function startZooKeeper(options: { tickTimeMs?: number } = {}): Promise<ZooKeeperServer> {
  const missing = missingPrerequisite();
  if (missing) throw new Error(`cannot start ZooKeeper: ${missing}`);
  const dir = mkdtempSync(join(tmpdir(), 'searchdeck-zk-'));
  const port = await freePort();
  const config = join(dir, 'zoo.cfg');
  writeFileSync(config, zooCfg(join(dir, 'data'), port, options.tickTimeMs ?? 2000));
  const logFile = join(dir, 'server.log');
  const log = openSync(logFile, 'w');
  const server = spawn(
    'java',
    [...JVM_OPTIONS, '-cp', `${ZOOKEEPER_CONF_DIR}:${ZOOKEEPER_JAR}`, SERVER_MAIN, config],
    {
      stdio: ['ignore', log, log],
    },
  );
  closeSync(log);
  const exited = once(server, 'exit');
  // Should a test forget stop(), the server must neither keep the test process alive nor outlive it.
  server.unref();
  const killOnExit = () => {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);

  const stop = async () => {
    process.removeListener('exit', killOnExit);
    await terminate(server, exited);
    rmSync(dir, { recursive: true, force: true });
  };
  const connectString = `127.0.0.1:${port}`;
  try {
    await untilAccepting(connectString, server, () => readFileSync(logFile, 'utf8'));
  } catch (error) {
    await stop();
    throw error;
  }
  return { connectString, sessions: () => sessionIds(port), stop };
}

async function sessionIds(port: number): Promise<Set<string>> {
  const socket = connect(port, '127.0.0.1');
  socket.end('dump');
  let text = '';
  for await (const chunk of socket) text += chunk;
  const [, tracker = ''] = /SessionTracker dump:([\s\S]*?)ephemeral nodes dump:/.exec(text) ?? [];
  return new Set(tracker.match(/0x[0-9a-f]+/g));
}

/** A loopback port that was free a moment ago; also a port where nothing listens. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

function zooCfg(dataDir: string, port: number, tickTimeMs: number): string {
  return [
    `tickTime=${tickTimeMs}`,
    'initLimit=10',
    'syncLimit=5',
    `dataDir=${dataDir}`,
    `clientPort=${port}`,
    'clientPortAddress=127.0.0.1',
    'admin.enableServer=false',
    'maxClientCnxns=0',
    // `dump` lists the sessions (`sessions()`); `srvr` is allowed by default.
    '4lw.commands.whitelist=srvr,dump',
    '',
  ].join('\n');
}

async function untilAccepting(connectString: string, server: ChildProcess, log: () => string): Promise<void> {
  const giveUpAt = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(
        `ZooKeeper exited (${server.exitCode ?? server.signalCode}) before accepting:\n${log()}`,
      );
    }
    try {
      // A real session, not only an open port: the server accepts TCP before it serves sessions.
      const session = await connectZooKeeper(connectString, 1000);
      await session.close();
      return;
    } catch {
      if (Date.now() > giveUpAt) throw new Error(`ZooKeeper did not accept sessions within 30 s:\n${log()}`);
    }
  }
}

async function terminate(server: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function isReadable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
