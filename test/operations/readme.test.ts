// The README's examples, run as a reader would paste them: every `sh` block in order, in
// one bash, against a server started as the quick start starts it (`serve` with a fresh
// data dir, the generated admin password read from its output). What each block prints is
// compared with what the README shows it printing, so neither can drift. Every output the
// README shows is in an order the API promises (docs say so), so lines are compared in order.
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

/**
 * The output the README shows for a block: the comment lines right after a command (no blank
 * line between) are what it prints, one line each; a comment line indented further (`#  …`)
 * continues the line before it. Other comments explain what comes next.
 */
function shownOutput(code: string): string[] {
  const shown: string[] = [];
  let afterCommand = false;
  let inOutput = false;
  for (const line of code.split('\n')) {
    const comment = /^#(?: (.*))?$/.exec(line);
    if (comment && inOutput && /^ \s/.test(line.slice(1)) && shown.length > 0) {
      shown[shown.length - 1] += (comment[1] ?? '').trim();
    } else if (comment && afterCommand) {
      shown.push(comment[1] ?? '');
      inOutput = true;
    } else {
      inOutput = false;
      // A command is complete unless its line goes on (`\`); a comment or a blank line is none.
      afterCommand = !comment && line.trim() !== '' && !line.endsWith('\\');
    }
  }
  return shown;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const INSTANT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g;
// Generated once per run: tokens and secrets the API answers under these member names.
const SECRET = /"(access_token|clientSecret|embedToken|secret|key)":"[^"]*"/g;

/**
 * What may differ between the README and a run: ids (numbered by first appearance in the
 * block, so the same id must show in the same places), instants and generated secrets.
 */
function normalised(lines: string[]): string[] {
  const ids = new Map<string, string>();
  return lines.map((line) =>
    line
      .replace(UUID, (id) => {
        const known = ids.get(id.toLowerCase()) ?? `<id${ids.size + 1}>`;
        ids.set(id.toLowerCase(), known);
        return known;
      })
      .replace(INSTANT, '<instant>')
      .replace(SECRET, '"$1":"<secret>"'),
  );
}

/** Whether an output line matches the line the README shows, where `…` stands for anything. */
function matchesShown(actual: string, shown: string): boolean {
  const pattern = shown
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*?');
  return new RegExp(`^${pattern}$`).test(actual);
}

/** Where the README's blocks differ from what they printed: one message per block that differs. */
function differences(blocks: Block[], outputs: Map<number, string>): string[] {
  const found: string[] = [];
  for (const block of blocks) {
    const printed = outputs.get(block.line) ?? '';
    const actual = normalised(printed.split('\n').filter((line) => line.trim() !== ''));
    const shown = normalised(shownOutput(block.code));
    const unterminated = printed !== '' && !printed.endsWith('\n');
    const same =
      !unterminated &&
      actual.length === shown.length &&
      actual.every((line, i) => matchesShown(line, shown[i]!));
    if (!same) {
      found.push(
        `README.md line ${block.line}${unterminated ? ' (its output does not end with a newline)' : ''}:\n` +
          `  shown:\n${shown.map((line) => `    ${line}`).join('\n')}\n` +
          `  printed:\n${actual.map((line) => `    ${line}`).join('\n')}`,
      );
    }
  }
  return found;
}

/** Splits the run's standard output at the markers written before each block (and after the last). */
function outputsOf(stdout: string): Map<number, string> {
  const outputs = new Map<number, string>();
  const parts = stdout.split(/@@ README\.md line (\d+|end)\n/);
  for (let i = 1; i + 2 < parts.length; i += 2) outputs.set(Number(parts[i]), parts[i + 1]!);
  return outputs;
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

  test('a block whose output drifts from what the README shows fails the comparison', () => {
    const block = {
      info: 'sh',
      line: 1,
      code: [
        '# Explains what comes next; not output.',
        'curl -X PUT http://x/api/links \\',
        "  -d '{}'",
        '# {"id":"0b6f3d52-3c1e-4f51-9d49-2d2a4cb6f5f1","at":"2026-11-21T19:15:30.912Z",',
        '#  "page":{…}}',
        'curl http://x/check',
        '# true',
      ].join('\n'),
    };
    const printed = (text: string) => new Map([[1, text]]);
    const same =
      '{"id":"4e1f6a0e-8f0c-4d0e-9c4b-1a2b3c4d5e6f","at":"2026-11-27T23:00:00.000Z","page":{"size":20}}\ntrue\n';
    assert.deepEqual(differences([block], printed(same)), []);
    for (const drifted of [
      same.replace('true', 'false'),
      same.replace('"page"', '"pages"'),
      same.replace('}}\ntrue', '}}true'),
      same.trimEnd(),
      `${same}extra\n`,
    ]) {
      assert.equal(differences([block], printed(drifted)).length, 1, drifted);
    }
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
          `echo '--- README.md line ${block.line}' >&2\nprintf '@@ README.md line ${block.line}\\n'\n${block.code.replaceAll(README_ADDRESS, address)}`,
      ),
      "printf '@@ README.md line end\\n'",
    ].join('\n');
    // The first block reads the admin password as a reader would type it.
    const result = await run(script, `${password}\n`);
    const failedAt = result.stderr.match(/--- README\.md line \d+/g)?.at(-1);
    assert.equal(result.status, 0, `${failedAt} failed:\n${result.stderr}\n${result.stdout}`);
    const found = differences(runnable, outputsOf(result.stdout));
    assert.deepEqual(
      found,
      [],
      `the README shows other output than its commands print:\n${found.join('\n')}`,
    );
  });
});
