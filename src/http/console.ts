// The console (console/, a single-page application built by Vite at install time) served
// under /console by the service itself: hashed assets cached for a year, every other path
// under /console answered with index.html so the application's own routes survive a reload.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { packageRoot } from '../package-root.js';

/** Where `vite build` writes the console: console/dist at the package's root. */
export function consoleDirectory(): string | undefined {
  const candidate = join(packageRoot(), 'console', 'dist');
  return existsSync(join(candidate, 'index.html')) ? candidate : undefined;
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>searchdeck console</title></head>
<body><main><h1>The console is not built</h1><p>Run <code>npm run build:console</code> (npm install does it) and restart.</p></main></body></html>`;

/** The console's routes; `root` is the built console (undefined: not built, a page says how). */
export async function consoleRoutes(app: FastifyInstance, root: string | undefined): Promise<void> {
  if (root === undefined) {
    app.get('/console', { schema: { hide: true } }, (_request, reply) =>
      reply.type('text/html').send(NOT_BUILT),
    );
    app.get('/console/*', { schema: { hide: true } }, (_request, reply) =>
      reply.type('text/html').send(NOT_BUILT),
    );
    return;
  }
  await app.register(async (scope) => {
    await scope.register(fastifyStatic, {
      root,
      prefix: '/console/',
      index: false,
      wildcard: false,
      redirect: false,
      schemaHide: true,
      // Our own Cache-Control below, instead of @fastify/static's max-age=0.
      cacheControl: false,
      setHeaders: (res, path) => {
        // Vite names every asset by its content: it never changes under the same name.
        res.setHeader(
          'cache-control',
          path.includes(`${join('/', 'assets', '/')}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
    const index = (request: FastifyRequest, reply: FastifyReply) => {
      // A hashed asset that is not there is a 404, never the page in its place.
      if (request.url.startsWith('/console/assets/')) return reply.callNotFound();
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    };
    scope.get('/console', { schema: { hide: true } }, index);
    scope.get('/console/*', { schema: { hide: true } }, index);
  });
}
