// An instance's terms on the Administrative API: the curated terms, the top-searched ones
// computed from the search logs, the logs themselves and their counts per hour.
import { Type } from 'typebox';
import { adminActor } from '../history/actor.js';
import type { AppContext, TypedApp } from '../http/area.js';
import { adminErrors } from '../http/schemas.js';
import {
  IdParams,
  SearchCountsQuery,
  SearchLogAnswer,
  SearchLogBody,
  TermCounts,
  TermsPatchBody,
  TermsPutBody,
} from './schemas.js';
import { searchesPerHour } from './search-counts.js';
import { ingestSearches, parseNdjson } from './search-log.js';
import { getTerms, patchTerms, putTerms, refreshTopSearchedNow } from './terms-service.js';
import type { TypeaheadParts } from './typeahead-parts.js';

const tags = ['typeahead'];
const withId = '/typeahead/instances/:id';

/** Reading and editing the curated terms. */
export function termsRoutes(api: TypedApp, ctx: AppContext, typeahead: TypeaheadParts): void {
  const db = ctx.store.db;
  api.get(
    `${withId}/terms`,
    {
      schema: {
        tags,
        operationId: 'getTypeaheadTerms',
        summary: 'Curated and top-searched terms with their counts',
        params: IdParams,
        response: { 200: Type.Ref('TypeaheadTerms'), ...adminErrors },
      },
    },
    async (request) => getTerms(db, request.params.id),
  );

  api.put(
    `${withId}/terms`,
    {
      // A merchandiser may edit the terms of the instances listed on their user.
      config: { access: { typeaheadInstance: 'id' } },
      schema: {
        tags,
        operationId: 'putTypeaheadTerms',
        summary: 'Replace the included and excluded terms',
        params: IdParams,
        body: TermsPutBody,
        response: { 200: Type.Ref('TypeaheadTerms'), ...adminErrors },
      },
    },
    async (request) =>
      putTerms(db, typeahead, request.params.id, request.body, ctx.now(), adminActor(request)),
  );

  api.patch(
    `${withId}/terms`,
    {
      // A merchandiser may edit the terms of the instances listed on their user.
      config: { access: { typeaheadInstance: 'id' } },
      schema: {
        tags,
        operationId: 'patchTypeaheadTerms',
        summary: 'Add and remove included and excluded terms',
        params: IdParams,
        body: TermsPatchBody,
        response: { 200: Type.Ref('TypeaheadTerms'), ...adminErrors },
      },
    },
    async (request) =>
      patchTerms(db, typeahead, request.params.id, request.body, ctx.now(), adminActor(request)),
  );
}

/** Customer searches reported (JSON or NDJSON), the top-searched terms recomputed, the counts per hour. */
export async function searchLogRoutes(
  api: TypedApp,
  ctx: AppContext,
  typeahead: TypeaheadParts,
): Promise<void> {
  const db = ctx.store.db;
  await api.register(async (logs: TypedApp) => {
    logs.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseNdjson(body as string));
      } catch (error) {
        done(error as Error);
      }
    });
    logs.post(
      `${withId}/search-logs`,
      {
        // 10,000 entries with timestamps and long queries need more than the 1 MiB
        // every other endpoint takes; this one alone accepts up to 8 MiB.
        bodyLimit: 8 * 1024 * 1024,
        schema: {
          tags,
          operationId: 'reportSearches',
          summary: 'Report customer searches (JSON array or NDJSON), at most 10,000 per call',
          params: IdParams,
          body: SearchLogBody,
          response: { 202: SearchLogAnswer, ...adminErrors },
        },
      },
      async (request, reply) =>
        reply
          .code(202)
          .send(await ingestSearches(db, request.params.id, request.body, ctx.now(), typeahead.searchLogs)),
    );
  });

  api.post(
    `${withId}/refresh`,
    {
      schema: {
        tags,
        operationId: 'refreshTopSearched',
        summary: 'Recompute the top-searched terms now; answers the new counts',
        params: IdParams,
        response: { 200: TermCounts, ...adminErrors },
      },
    },
    async (request) => refreshTopSearchedNow(db, typeahead, request.params.id),
  );

  api.get(
    `${withId}/search-counts`,
    {
      schema: {
        tags,
        operationId: 'getTypeaheadSearchCounts',
        summary: 'Logged searches per hour (UTC) over a trailing range, for a chart',
        params: IdParams,
        querystring: SearchCountsQuery,
        response: { 200: Type.Ref('TypeaheadSearchCounts'), ...adminErrors },
      },
    },
    async (request) => searchesPerHour(db, request.params.id, request.query.hours, ctx.now()),
  );
}
