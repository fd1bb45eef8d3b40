// Where the token endpoint reads a request's parameters from: the form body, as RFC 6749
// §4.4.2 has it, and the query string, as Lucidworks' API reference shows the token request
// (`grant_type` and `scope` as query parameters). RFC 6749 §3.2: a parameter is sent once.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { OAuthError } from './token-service.js';

/** The parameters that may also come from the query string. */
export const QUERY_PARAMETERS = ['grant_type', 'scope', 'client_id', 'client_secret'] as const;

type Fields = Record<string, string | string[]>;

/** The query string the token endpoint reads, for the API document; others are ignored. */
export const TokenQuery = Type.Object({
  grant_type: Type.Optional(Type.String({ description: 'client_credentials; or in the form body' })),
  scope: Type.Optional(Type.String({ description: 'space-separated scopes; or in the form body' })),
  client_id: Type.Optional(Type.String({ description: 'or Basic authentication, or the form body' })),
  client_secret: Type.Optional(Type.String({ description: 'or Basic authentication, or the form body' })),
});

/** The path of the token URL as the API reference writes it; any authorization server id is this one. */
export const AuthorizationServerParams = Type.Object({
  authorizationServerId: Type.String({
    description: 'any value: searchdeck is one authorization server, whatever its id is called',
  }),
});

/** An `application/x-www-form-urlencoded` body; a name given more than once keeps all its values. */
export function formFields(text: string): Fields {
  const fields: Fields = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const given = fields[name];
    if (given === undefined) fields[name] = value;
    else fields[name] = Array.isArray(given) ? [...given, value] : [given, value];
  }
  return fields;
}

/**
 * A `preValidation` hook of the token routes: puts the query string's parameters into the
 * form body, so the handler reads them in one place. A parameter repeated in the body or in
 * the query is refused; one given in both is taken when both say the same, refused otherwise.
 */
export async function gatherTokenParameters(request: FastifyRequest): Promise<void> {
  const body = isFields(request.body) ? request.body : {};
  const query = isFields(request.query) ? request.query : {};
  const gathered: Record<string, unknown> = { ...body };
  for (const name of QUERY_PARAMETERS) {
    // Unrecognized parameters are ignored (RFC 6749 §3.2), repeated or not.
    if (Array.isArray(body[name])) throw repeated(name, 'in the body');
    const value = query[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) throw repeated(name, 'in the query string');
    if (gathered[name] !== undefined && gathered[name] !== value) {
      throw new OAuthError(
        'invalid_request',
        `${name} is given in both the query string and the body, with different values`,
      );
    }
    gathered[name] = value;
  }
  request.body = gathered;
}

function repeated(name: string, where: string): OAuthError {
  return new OAuthError('invalid_request', `${name} is given more than once ${where}`);
}

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
