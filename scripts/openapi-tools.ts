// Checks and products of the OpenAPI document the app serves, shared by the npm scripts
// (`lint:openapi`, `generate:api-types`) and the tests that run them in CI.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where the generated types are committed. */
export const API_TYPES_FILE = fileURLToPath(new URL('../console/src/api/schema.d.ts', import.meta.url));

/** The TypeScript declarations of an OpenAPI document (`paths`, `components`, `operations`). */
export async function apiTypesOf(document: object): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { alphabetize: false });
  return `${COMMENT_HEADER}// Regenerate with \`npm run generate:api-types\`; a test fails while this file is stale.\n\n${astToString(ast)}`;
}

/** The document as `GET /api/openapi.json` answers it, from an app on a throwaway SQLite database. */
export async function servedDocument(): Promise<object> {
  const dataDir = mkdtempSync(join(tmpdir(), 'searchdeck-openapi-'));
  const config = loadConfig({ SEARCHDECK_DATA_DIR: dataDir, SEARCHDECK_LOG_LEVEL: 'silent' });
  const store = openStore(config);
  try {
    await migrateToLatest(store);
    const app = await buildApp({ config, store, secretKey: Buffer.alloc(32), logger: false });
    try {
      return (await app.inject({ url: '/api/openapi.json' })).json();
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One finding of Redocly's linter. */
export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

/** What `redocly lint` (the rules of redocly.yaml: recommended, and stricter on examples) finds in the document. */
export async function redoclyLint(document: object): Promise<LintProblem[]> {
  const dir = mkdtempSync(join(tmpdir(), 'searchdeck-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
    const args = [cli, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'];
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    // It exits with 1 when it finds an error; the report on stdout says what either way.
    const run = promisify(execFile)(process.execPath, args, { env, maxBuffer: 64 * 1024 * 1024 });
    const { stdout } = await run.catch((failed: { stdout?: string; stderr?: string }) => {
      if (!failed.stdout) throw new Error(`redocly lint failed: ${failed.stderr ?? failed}`);
      return { stdout: failed.stdout };
    });
    return (JSON.parse(stdout) as { problems: LintProblem[] }).problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
