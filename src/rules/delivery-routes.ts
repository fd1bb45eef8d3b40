// `GET /api/studios/{id}/deliveries`: the rule-sync outbox of a studio, for whoever runs it.
import { Type } from 'typebox';
import type { AppContext, TypedApp } from '../http/area.js';
import { adminErrors, IdString, withExamples } from '../http/schemas.js';
import { DELIVERY_STATUSES, listDeliveries } from './deliveries.js';

const Delivery = Type.Object({
  id: Type.String({ description: 'also the webhook-id header of every attempt' }),
  ruleId: Type.String(),
  event: Type.Enum(['rule.changed', 'rule.removed']),
  stage: Type.Enum(['staging', 'live']),
  status: Type.Enum(DELIVERY_STATUSES),
  attempts: Type.Integer(),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
});
const DeliveryQuery = Type.Object({
  status: Type.Optional(Type.Enum(DELIVERY_STATUSES)),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
});

/** The deliveries listing of the Administrative API. Studios are global: an app scope does not narrow it. */
export function deliveryRoutes(api: TypedApp, ctx: AppContext): void {
  api.get(
    '/studios/:id/deliveries',
    {
      schema: {
        tags: ['studios'],
        operationId: 'listDeliveries',
        summary: "Deliveries of a studio's rule changes to its sync targets, newest first",
        params: Type.Object({ id: withExamples(IdString, 'shop') }),
        querystring: DeliveryQuery,
        response: { 200: Type.Array(Delivery), ...adminErrors },
      },
    },
    (request) => listDeliveries(ctx.store.db, request.params.id, request.query),
  );
}
