// `npm run solr` as a person runs it: the script behind it, as a process. The full start costs
// about 10 s of a second Solr JVM: it is the only test of what a person sees (the ready line,
// SEARCHDECK_SOLR_PORT, ZooKeeper beside it, Ctrl-C), which the run's shared Solr cannot show.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SOLR_CREDENTIALS } from '../../scripts/solr-cloud.js';
import { SAMPLE_CATALOG_SIZE } from '../../src/demo/catalog.js';
import { SolrCollections } from '../../src/demo/solr-collections.js';
import { solrSkipReason } from '../helpers/solr.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = ['--import', 'tsx', 'scripts/solr.ts'];

/** Whether nothing listens on `port` of the loopback address. */
async function free(port: number): Promise<boolean> {
  const server = createServer();
  try {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    server.close();
  }
}

/** A port P with P, P + 1 (the second node) and P + 1000 (ZooKeeper) free. */
async function freePortTriple(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if ((await free(port)) && (await free(port + 1)) && (await free(port + 1000))) return port;
  }
  throw new Error('no free ports for Solr');
}

test('without Java, npm run solr says so in one line and exits 1', async () => {
  // Node is started by its path; on an empty PATH, java, javac and mvn are not found.
  const child = spawn(process.execPath, script, {
    cwd: root,
    env: { ...process.env, PATH: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const [code] = (await once(child, 'exit')) as [number];
  assert.equal(code, 1);
  assert.match(
    output.trim(),
    /^npm run solr: (java|javac|mvn) is not on the PATH \(Solr needs Java 17 or later and Maven\)\.$/,
  );
});

describe('npm run solr', { skip: solrSkipReason() }, () => {
  test('starts two nodes on SEARCHDECK_SOLR_PORT, loads the sample catalog, prints one ready line and stops on Ctrl-C', async () => {
    const port = await freePortTriple();
    const child = spawn(process.execPath, script, {
      cwd: root,
      env: { ...process.env, SEARCHDECK_SOLR_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
    const ready = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk;
        const line = stdout.split('\n').find((l) => l.startsWith('solr ready: '));
        if (line) resolve(line);
      });
      exited.then(() => reject(new Error(`npm run solr exited before it was ready:\n${stderr}`)));
    });
    try {
      assert.equal(ready, `solr ready: http://127.0.0.1:${port}/solr zk: 127.0.0.1:${port + 1000}/solr`);
      const solr = new SolrCollections(`http://127.0.0.1:${port}/solr`, SOLR_CREDENTIALS);
      assert.equal(await solr.count('products'), SAMPLE_CATALOG_SIZE);
      // The second node answers too.
      const second = new SolrCollections(`http://127.0.0.1:${port + 1}/solr`, SOLR_CREDENTIALS);
      assert.equal(await second.count('products'), SAMPLE_CATALOG_SIZE);
    } finally {
      child.kill('SIGINT');
    }
    const [code] = await exited;
    assert.equal(code, 0, stderr);
    assert.equal(await free(port), true, 'the first node still listens after Ctrl-C');
    assert.equal(await free(port + 1000), true, 'ZooKeeper still listens after Ctrl-C');
  });
});
