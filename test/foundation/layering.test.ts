// src/http is the layer every area stands on: it may use the other shared layers, never an
// area, or the areas would no longer be layered on it but tangled with it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../src', import.meta.url));

/** What src/http may import from src/: itself, the other shared layers, the configuration and the package's root. */
const SHARED = ['http', 'storage', 'security', 'jobs'];
const SHARED_FILES = ['config.ts', 'package-root.ts'];

/** The relative module paths a source imports: static, type-only, re-exported or dynamic. */
function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
    found.push(match[1]!);
  }
  return found;
}

/** The imports of `file` (a path under src/) that reach outside the shared layers. */
function importsBeyondShared(file: string, source: string): string[] {
  return relativeImports(source).filter((specifier) => {
    const target = relative(src, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts');
    const [top, ...rest] = target.split(sep);
    if (rest.length === 0) return !SHARED_FILES.includes(top!);
    return !SHARED.includes(top!);
  });
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('src/http imports no area, only the shared layers', () => {
  const beyond = sourcesUnder(join(src, 'http')).flatMap((file) =>
    importsBeyondShared(file, readFileSync(file, 'utf8')).map(
      (specifier) => `${relative(src, file)} imports ${specifier}`,
    ),
  );
  assert.deepEqual(beyond, []);
});

test('the check sees every form of import that reaches an area', () => {
  const file = join(src, 'http', 'example.ts');
  const source = [
    "import { a } from './errors.js';",
    "import type { B } from '../storage/schema.js';",
    "import { c } from '../config.js';",
    "import type { Role } from '../users/roles.js';",
    "export { d } from '../links/service.js';",
    "import '../rules/side-effect.js';",
    "const e = await import('../query/routes.js');",
    "import {\n  f,\n} from '../app.js';",
  ].join('\n');
  assert.deepEqual(importsBeyondShared(file, source), [
    '../users/roles.js',
    '../links/service.js',
    '../rules/side-effect.js',
    '../query/routes.js',
    '../app.js',
  ]);
});
