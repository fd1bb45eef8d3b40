// Studios and API clients on the wire: what the Administrative API takes and answers.
import { Type } from 'typebox';
import { adminErrors, IdString } from '../http/schemas.js';
import { SCOPES } from './service.js';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const WebhookUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });

export const Studio = Type.Object({
  id: Type.String(),
  name: Type.String(),
  syncTargets: Type.Array(Type.String()),
  createdAt: Type.String(),
});
export const Client = Type.Object({
  clientId: Type.String(),
  studioId: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
});
/** A client as created: the only answer that shows its secret. */
export const CreatedClient = Type.Object({ ...Client.properties, clientSecret: Type.String() });

export const StudioParams = Type.Object({ id: IdString });
export const ClientParams = Type.Object({ id: IdString, clientId: Type.String() });
export const StudioCreateBody = Type.Object({ id: IdString, name: Name }, { additionalProperties: false });
export const StudioChangeBody = Type.Object(
  { name: Type.Optional(Name), syncTargets: Type.Optional(Type.Array(WebhookUrl, { maxItems: 20 })) },
  { additionalProperties: false },
);
export const StudioDeleteQuery = Type.Object({ force: Type.Optional(Type.Boolean()) });
export const ClientCreateBody = Type.Object(
  { name: Name, scopes: Type.Optional(Type.Array(Type.Enum(SCOPES), { minItems: 1 })) },
  { additionalProperties: false },
);

export const studioErrors = { ...adminErrors, 409: Type.Ref('ErrorBody') };
