// The README's examples, run as a reader would paste them: every `sh` block in order, in
// one bash, against a server started as the quick start starts it (`serve` with a fresh
// data dir, the generated admin password read from its output), so they cannot drift.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startService } from '../helpers/process.js';

/** The address the README's examples use; the test's server listens on a free port instead. */
const README_ADDRESS = '127.0.0.1:8764';
/** Info string of a block that needs what the test cannot provide (documented in the README). */
const NOT_RUN = 'sh no-test';

interface Block {
  info: string;
  line: number;
  code: string;
}

function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  for (const match of markdown.matchAll(/^```(.*)\n([\s\S]*?)^```$/gm)) {
    const line = markdown.slice(0, match.index).split('\n').length;
    blocks.push({ info: match[1]!.trim(), line, code: match[2]! });
  }
  return blocks;
}

function missingTools(): string | undefined {
  const missing = ['bash', 'curl', 'jq'].filter(
    (tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0,
  );
  if (missing.length === 0) return undefined;
  const reason = `the README's examples need ${missing.join(', ')}`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires them`);
  return reason;
}

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const blocks = blocksOf(readme);
const shell = blocks.filter((block) => block.info === 'sh' || block.info.startsWith('sh '));
const runnable = shell.filter((block) => block.info === 'sh');

/** Outputs the README shows after a command: comment lines that are JSON (`# true`, `# ["a"]`). */
function shownOutputs(code: string): string[] {
  return code.split('\n').flatMap((line) => {
    const shown = /^# (.+)$/.exec(line)?.[1];
    if (shown === undefined) return [];
    try {
      JSON.parse(shown);
      return [shown];
    } catch {
      return [];
    }
  });
}

function run(
  script: string,
  stdin: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      // Nothing from this process's environment: the blocks set what they use.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), LANG: 'C.UTF-8' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(stdin);
  });
}

describe("the README's examples", { skip: missingTools() }, () => {
  test('mark every shell block either run or not run, and run most of the examples', () => {
    for (const block of shell) {
      assert.ok(block.info === 'sh' || block.info === NOT_RUN, `line ${block.line}: fence "${block.info}"`);
    }
    assert.ok(runnable.length >= 4, 'the links, typeahead and rules examples are run');
    assert.ok(runnable.some((block) => block.code.includes('/em-rules')));
    assert.ok(runnable.some((block) => block.code.includes('/typeahead/suggestions')));
  });

  test('run as pasted, in order, against a freshly started server', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-readme-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const service = await startService({ SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_ADMIN_PASSWORD: '' });
    t.after(() => service.stop());
    const printed = service
      .output()
      .split('\n')
      .find((line) => line.includes('password'));
    const password = /: (\S+)$/.exec(printed ?? '')?.[1];
    assert.ok(password, `the generated password in: ${service.output()}`);

    const address = new URL(service.url).host;
    const script = [
      'set -euo pipefail',
      // An answer of 4xx or 5xx fails the block, as a reader would notice it.
      'curl() { command curl --fail-with-body --show-error "$@"; }',
      ...runnable.map(
        (block) =>
          `echo '--- README.md line ${block.line}' >&2\n${block.code.replaceAll(README_ADDRESS, address)}`,
      ),
    ].join('\n');
    // The first block reads the admin password as a reader would type it.
    const result = await run(script, `${password}\n`);
    const failedAt = result.stderr.match(/--- README\.md line \d+/g)?.at(-1);
    assert.equal(result.status, 0, `${failedAt} failed:\n${result.stderr}\n${result.stdout}`);
    for (const shown of runnable.flatMap((block) => shownOutputs(block.code))) {
      assert.ok(
        result.stdout.includes(shown),
        `the README shows ${shown}; the output was:\n${result.stdout}`,
      );
    }
  });
});
