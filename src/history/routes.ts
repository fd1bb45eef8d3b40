import type { Area } from '../http/area.js';
import { adminErrors, sharedRef } from '../http/schemas.js';
import { adminActor } from './actor.js';
import {
  HistoryEventCreate,
  HistoryEventSchema,
  HistoryIdParams,
  HistoryPage,
  HistoryQuery,
} from './schemas.js';
import { addEvent, getEvent, listHistory } from './service.js';

const tags = ['history'];
const HistoryEvent = sharedRef(HistoryEventSchema);

/** The History API: who changed what, and the events clients add themselves. */
export const historyArea: Area = {
  name: 'history',
  schemas: [HistoryEventSchema],
  admin(api, ctx) {
    const db = ctx.store.db;
    api.get(
      '/history',
      {
        schema: {
          tags,
          operationId: 'listHistory',
          summary: 'List history events, newest first',
          querystring: HistoryQuery,
          response: { 200: HistoryPage, ...adminErrors },
        },
      },
      async (request) => listHistory(db, request.query),
    );

    api.get(
      '/history/:id',
      {
        schema: {
          tags,
          operationId: 'getHistoryEvent',
          summary: 'One history event',
          params: HistoryIdParams,
          response: { 200: HistoryEvent, ...adminErrors },
        },
      },
      async (request) => getEvent(db, request.params.id),
    );

    api.post(
      '/history',
      {
        schema: {
          tags,
          operationId: 'addHistoryEvent',
          summary: "Add a client's own event to the history",
          body: HistoryEventCreate,
          response: { 201: HistoryEvent, ...adminErrors },
        },
      },
      async (request, reply) => {
        const event = await addEvent(db, adminActor(request), request.body, ctx.now());
        return reply.code(201).send(event);
      },
    );
  },
};
