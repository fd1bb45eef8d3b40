import type { FastifyInstance } from 'fastify';
import { adminAuth } from './app.js';

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are JSON whose shape each test asserts
  body: any;
}

/**
 * One request through `app.inject` (as the admin unless `authorization` says otherwise),
 * answered as status and parsed JSON body.
 */
export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  authorization: string = adminAuth,
): Promise<Answer> {
  const response = await app.inject({
    method,
    url,
    headers: { authorization },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return { status: response.statusCode, body: response.body ? response.json() : undefined };
}
