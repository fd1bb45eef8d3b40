import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { errorCodes } from '../../src/http/errors.js';
import { adminAuth, build } from '../helpers/app.js';

const root = join(import.meta.dirname, '..', '..');

/** The rows of the `## Codes` table of docs/errors.md, as code → status. */
function documentedCodes(): Map<string, number> {
  const text = readFileSync(join(root, 'docs', 'errors.md'), 'utf8');
  const section = text.split(/^## Codes$/m)[1]?.split(/^## /m)[0];
  assert.ok(section, 'docs/errors.md has a "## Codes" section');
  const codes = new Map<string, number>();
  for (const line of section.split('\n')) {
    const row = /^\| ([a-z-]+) \| (\d{3}) \|/.exec(line);
    if (!row) continue;
    assert.ok(!codes.has(row[1]!), `${row[1]} is documented once`);
    codes.set(row[1]!, Number(row[2]));
  }
  return codes;
}

/** Every TypeScript file under src/, with the closed list itself left out of errors.ts. */
function sourceText(): string {
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.ts'),
  );
  return files
    .map((file) => {
      const text = readFileSync(join(root, 'src', file), 'utf8');
      return file === join('http', 'errors.ts')
        ? text.replace(/export const errorCodes = \{[^}]*\}/, '')
        : text;
    })
    .join('\n');
}

describe('the closed list of error codes', () => {
  test('documents every code of the source with its status, and no other', () => {
    const documented = documentedCodes();
    const inSource = new Map(Object.entries(errorCodes));
    for (const [code, status] of inSource) {
      assert.equal(documented.get(code), status, `${code} (${status}) is in docs/errors.md with that status`);
    }
    for (const [code, status] of documented) {
      assert.equal(
        inSource.get(code),
        status,
        `${code} (${status}) of docs/errors.md is in src/http/errors.ts`,
      );
    }
  });

  test('gives every code somewhere in the source, so none is listed and never answered', () => {
    const source = sourceText();
    const unused = Object.keys(errorCodes).filter((code) => !source.includes(`'${code}'`));
    assert.deepEqual(unused, []);
  });
});

describe('content types of JSON routes', () => {
  for (const contentType of ['text/plain', 'text/plain; charset=utf-8']) {
    test(`answers a ${contentType} body with 415 in the common body, even when it holds JSON`, async (t) => {
      const { app } = await build(t, 'sqlite');
      const response = await app.inject({
        method: 'PUT',
        url: '/api/links',
        headers: { authorization: adminAuth, 'content-type': contentType },
        payload: JSON.stringify({ subject: 'app:a', object: 'app:b', linkType: 'dependsOn' }),
      });
      assert.equal(response.statusCode, 415);
      const body = response.json();
      assert.equal(body.code, 'unsupported-media-type');
      assert.equal(body.status, 415);
      assert.equal(body.path, '/api/links');
      const links = await app.inject({ url: '/api/links', headers: { authorization: adminAuth } });
      assert.deepEqual(links.json(), [], 'nothing was stored');
    });
  }

  test('still takes a JSON body and an OAuth2 form', async (t) => {
    const { app } = await build(t, 'sqlite');
    const json = await app.inject({
      method: 'PUT',
      url: '/api/links',
      headers: { authorization: adminAuth, 'content-type': 'application/json' },
      payload: JSON.stringify({ subject: 'app:a', object: 'app:b', linkType: 'dependsOn' }),
    });
    assert.ok(json.statusCode < 300, json.body);
    const form = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=x&client_secret=y',
    });
    assert.equal(form.statusCode, 401);
    assert.equal(form.json().error, 'invalid_client');
  });
});
