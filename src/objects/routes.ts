// The Objects area of the Administrative API: export an app's (or any) objects as one document,
// import such a document into this instance.

import { Readable } from 'node:stream';
import { adminActor } from '../history/actor.js';
import { type AppContext, type Area, appScope, type TypedApp } from '../http/area.js';
import { ValidationError } from '../http/errors.js';
import { adminErrors, sharedRef } from '../http/schemas.js';
import { SecretBox } from '../security/secret-box.js';
import { exportDocument, selectionOf } from './export.js';
import { importObjects } from './import.js';
import type { ObjectsDeps } from './kind.js';
import {
  DocumentSchema,
  ExportQuery,
  ImportQuery,
  ImportReportSchema,
  type ObjectsDocument,
} from './schemas.js';

const tags = ['objects'];
const Document = sharedRef(DocumentSchema);
const errors = { ...adminErrors, 409: adminErrors[400] };

// A document with 100,000 rules is some tens of megabytes; the rest of the API keeps 1 MiB.
const IMPORT_BODY_LIMIT = 256 * 1024 * 1024;

/** What the area needs of the app's stateful parts. */
export type ObjectsParts = Omit<ObjectsDeps, 'box' | 'now'>;

/** The Objects API (`/api/objects`, `/api/apps/{app}/objects`). */
export function objectsArea(parts: ObjectsParts): Area {
  return {
    name: 'objects',
    schemas: [DocumentSchema, ImportReportSchema],
    admin: (api, ctx) => objectRoutes(api, ctx, parts),
  };
}

function objectRoutes(api: TypedApp, ctx: AppContext, parts: ObjectsParts): void {
  const db = ctx.store.db;
  const deps: ObjectsDeps = { box: new SecretBox(ctx.secretKey), now: ctx.now, ...parts };

  api.get(
    '/objects/export',
    {
      schema: {
        tags,
        operationId: 'exportObjects',
        summary: 'Export objects as one document: an app’s (app), the named ones (type and id), or all',
        querystring: ExportQuery,
        response: { 200: Document, ...errors },
      },
    },
    async (request, reply) => {
      const selection = await selectionOf(db, {
        ...request.query,
        app: scopedApp(request.query.app, appScope(request)),
      });
      // Streamed: the reply's schema documents the shape, and the pieces are written as they are
      // read (Fastify sends a stream as it is, so the typed send is told it is the document).
      const stream = Readable.from(exportDocument(db, deps, selection));
      return reply.type('application/json; charset=utf-8').send(stream as unknown as ObjectsDocument);
    },
  );

  api.post(
    '/objects/import',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        tags,
        operationId: 'importObjects',
        summary: 'Import a document in one transaction (policy abort, merge or overwrite; dryRun)',
        querystring: ImportQuery,
        body: Document,
        response: { 200: sharedRef(ImportReportSchema), ...errors },
      },
    },
    async (request) => importObjects(db, deps, request.body, request.query, adminActor(request)),
  );
}

/** The app of an export: the path's under `/api/apps/{app}`, which `?app=` may repeat but not contradict. */
function scopedApp(query: string | undefined, path: string | undefined): string | undefined {
  if (path !== undefined && query !== undefined && query !== path) {
    throw new ValidationError(
      [{ field: 'app', message: `app ${query} differs from app ${path} of the path` }],
      'invalid-parameter',
    );
  }
  return path ?? query;
}
