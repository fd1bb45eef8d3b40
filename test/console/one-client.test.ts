// The console calls the API through its one client (console/src/api/client.ts, typed by the
// OpenAPI document) and no other way: read from the sources' syntax trees, no file outside
// console/src/api/ reaches for fetch or another way out of the page, makes a second client,
// or writes an API path anywhere but as the path argument of the typed client's call.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sources = join(root, 'console', 'src');
const clientDir = join(sources, 'api');

/** Names through which a page could call a server without the client. */
const WAYS_OUT = new Set(['fetch', 'XMLHttpRequest', 'EventSource', 'WebSocket', 'sendBeacon']);
const METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE']);

function pageFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === clientDir ? [] : pageFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

function where(file: ts.SourceFile, node: ts.Node): string {
  const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
  return `${relative(root, file.fileName)}:${line + 1}`;
}

/** The API's path templates, split into segments (`{id}` matches any segment). */
function apiPaths(): string[][] {
  const schema = parse(join(clientDir, 'schema.d.ts'));
  const paths = schema.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'paths',
  );
  assert.ok(paths, 'schema.d.ts declares the paths');
  return paths.members
    .map((member) => (member.name && ts.isStringLiteral(member.name) ? member.name.text : ''))
    .map((path) => path.split('/').filter(Boolean))
    .filter((segments) => segments.length > 0);
}

/** A literal's path, as segments; a `${…}` part is '*', which matches any segment. */
function segmentsOf(node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression) {
  const text = ts.isTemplateExpression(node)
    ? node.head.text + node.templateSpans.map((span) => `*${span.literal.text}`).join('')
    : node.text;
  if (!text.startsWith('/')) return undefined;
  return text.split(/[?#]/)[0]!.split('/').filter(Boolean);
}

function isApiPath(segments: string[], paths: string[][]): boolean {
  if (segments.length === 0 || segments[0] === '*') return false;
  return paths.some(
    (path) =>
      path.length === segments.length &&
      path.every((part, i) => part.startsWith('{') || segments[i] === '*' || segments[i] === part),
  );
}

/** Whether a literal is the path argument of `api.GET(…)` and the like, or a type. */
function isTypedUse(node: ts.Node): boolean {
  const parent = node.parent;
  if (ts.isLiteralTypeNode(parent)) return true;
  return (
    ts.isCallExpression(parent) &&
    parent.arguments[0] === node &&
    ts.isPropertyAccessExpression(parent.expression) &&
    ts.isIdentifier(parent.expression.expression) &&
    parent.expression.expression.text === 'api' &&
    METHODS.has(parent.expression.name.text)
  );
}

test('no console file outside its API client calls the network by itself', () => {
  const found: string[] = [];
  for (const path of pageFiles(sources)) {
    const file = parse(path);
    walk(file, (node) => {
      if (ts.isIdentifier(node) && WAYS_OUT.has(node.text)) found.push(`${where(file, node)} ${node.text}`);
      if (ts.isImportDeclaration(node) && (node.moduleSpecifier as ts.StringLiteral).text === 'openapi-fetch')
        found.push(`${where(file, node)} a second openapi-fetch client`);
    });
  }
  assert.deepEqual(found, [], 'call the API through console/src/api/client.ts');
});

test('no console file outside its API client writes an API path but to the typed client', () => {
  const paths = apiPaths();
  const found: string[] = [];
  for (const path of pageFiles(sources)) {
    const file = parse(path);
    walk(file, (node) => {
      if (
        !ts.isStringLiteral(node) &&
        !ts.isNoSubstitutionTemplateLiteral(node) &&
        !ts.isTemplateExpression(node)
      )
        return;
      const segments = segmentsOf(node);
      if (segments && isApiPath(segments, paths) && !isTypedUse(node))
        found.push(`${where(file, node)} ${node.getText(file)}`);
    });
  }
  assert.deepEqual(found, [], 'name the path in a call of `api` (its types come from the document)');
});
