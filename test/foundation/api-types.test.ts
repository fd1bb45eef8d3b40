// The console's API types (console/src/api/schema.d.ts) are generated from the document the
// app serves by openapi-typescript: the committed file must be current and must compile, which
// also proves that a client generator can use the document.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import ts from 'typescript';
import { API_TYPES_FILE, apiTypesOf } from '../../scripts/openapi-tools.js';
import { build } from '../helpers/app.js';

test('the committed console API types are those of the served document', async (t) => {
  const { app } = await build(t, 'sqlite');
  const generated = await apiTypesOf((await app.inject({ url: '/api/openapi.json' })).json());
  const committed = readFileSync(API_TYPES_FILE, 'utf8');
  assert.ok(
    committed === generated,
    'console/src/api/schema.d.ts is stale: run `npm run generate:api-types`',
  );
});

test('the console API types compile under strict TypeScript and name the shapes a client uses', () => {
  // A client of the types, checked with them (declaration files included, unlike the project's
  // typecheck, which skips them).
  const client = `${API_TYPES_FILE.replace(/schema\.d\.ts$/, '')}__check__.ts`;
  const source = [
    "import type { components, operations, paths } from './schema.js';",
    "type Rule = components['schemas']['Rule'];",
    "type ErrorBody = components['schemas']['ErrorBody'];",
    "type Listing = operations['listRules']['responses'][200]['content']['application/json'];",
    "type ListingQuery = NonNullable<paths['/em-rules']['get']['parameters']['query']>;",
    "const rule: Pick<Rule, 'name' | 'publishState'> = { name: 'Block P1', publishState: 'DRAFT' };",
    "const failure: ErrorBody['code'] = 'not-found';",
    "const query: ListingQuery = { page: 0, size: 20, sort: ['name', 'asc'] };",
    'const page = (listing: Listing): number => listing.page.totalElements;',
    'export { failure, page, query, rule };',
  ].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (file === client ? source : readFile(file));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => file === client || fileExists(file);
  const program = ts.createProgram([client, API_TYPES_FILE], options, host);
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  assert.deepEqual(problems, []);
});
