// Evaluation of live rules and rewrites: `/em-rules/evaluate` for search applications and
// previews (bearer token of the studio), `/api/studios/{id}/evaluate` for admins.
import { Type } from 'typebox';
import type { Area, TypedApp } from '../http/area.js';
import { adminErrors, IdString } from '../http/schemas.js';
import { actorOf, requireBearer, type StudioCredentials } from '../oauth/bearer-auth.js';
import { EVALUATE_PATH, evaluateEarly, RULES_SCOPE, vouchedByCopy } from './evaluate-endpoint.js';
import type { EvaluationParts } from './evaluation-parts.js';
import { EvaluateBody, EvaluateQuery, EvaluationResponse } from './schemas.js';
import { EvaluationService } from './service.js';

const tags = ['rules'];
const errors = Object.fromEntries([400, 401, 403].map((status) => [status, Type.Ref('ErrorBody')]));

/** The evaluation routes, answered from the compiled indexes of `parts`. */
export function evaluationArea(credentials: StudioCredentials, parts: EvaluationParts): Area {
  return {
    name: 'evaluation',
    async admin(api, ctx) {
      const evaluation = new EvaluationService(parts, ctx.now);
      const db = ctx.store.db;
      api.get(
        '/studios/:id/evaluate',
        {
          schema: {
            tags: ['studios'],
            operationId: 'evaluateStudioQuery',
            summary: "Preview what a studio's live rules and rewrites do to a query",
            params: Type.Object({ id: IdString }),
            querystring: EvaluateQuery,
            response: { 200: EvaluationResponse, ...adminErrors },
          },
        },
        (request) => evaluation.evaluateForAdmin(db, request.params.id, request.query),
      );
    },
    async public(app, ctx) {
      const evaluation = new EvaluationService(parts, ctx.now);
      const db = ctx.store.db;
      // Tokens are checked against the copy of the studio the evaluation is answered from.
      const vouch = vouchedByCopy(credentials.tokens, parts);
      const early = evaluateEarly(vouch, evaluation);
      for (const prefix of ['', '/studios/:studioId']) {
        await app.register(
          async (api: TypedApp) => {
            requireBearer(api, db, credentials, RULES_SCOPE, vouch);
            api.get(
              EVALUATE_PATH,
              {
                config: { early },
                schema: {
                  tags,
                  operationId: 'evaluateQuery',
                  summary: "What the studio's live rules and rewrites do to a shopper's query",
                  querystring: EvaluateQuery,
                  response: { 200: EvaluationResponse, ...errors },
                },
              },
              (request) => evaluation.evaluate(actorOf(request).studioId, request.query),
            );
            api.post(
              '/em-rules/evaluate',
              {
                schema: {
                  tags,
                  operationId: 'evaluateQueryPreview',
                  summary: 'Evaluate a query given as JSON; `useStaging` previews the staging content',
                  body: EvaluateBody,
                  response: { 200: EvaluationResponse, ...errors },
                },
              },
              (request) => evaluation.preview(db, actorOf(request).studioId, request.body),
            );
          },
          { prefix },
        );
      }
    },
  };
}
