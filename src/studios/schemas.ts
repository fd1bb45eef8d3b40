// Studios and API clients on the wire: what the Administrative API takes and answers.
import { Type } from 'typebox';
import { errorMessage } from '../http/error-message.js';
import { adminErrors, IdString, withExamples } from '../http/schemas.js';
import { SCOPES } from '../oauth/scopes.js';

const Name = Type.String({ minLength: 1, maxLength: 200 });
// No credentials in the URL: it is shown to every reader of the studio, its history and its
// export, and fetch refuses such a URL anyway. A target authenticates the signature instead.
const WebhookUrl = Type.String({
  format: 'uri',
  pattern: '^https?://[^/?#@]+([/?#]|$)',
  maxLength: 2048,
  ...errorMessage(
    'must be an http(s) URL without user name or password (each target gets its own signing secret)',
  ),
});

export const Studio = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    syncTargets: Type.Array(Type.String()),
    createdAt: Type.String(),
  },
  { examples: [{ id: 'shop', name: 'Shop', syncTargets: [], createdAt: '2026-11-24T06:28:36.023Z' }] },
);
/** The signing secrets a change of sync targets made: shown in that answer only. */
export const TargetSecrets = Type.Array(
  Type.Object({ url: Type.String(), secret: Type.String({ description: 'whsec_<base64>' }) }),
);
/** A studio as changed: with the secrets of the targets that got a new one. */
export const ChangedStudio = Type.Object({
  ...Studio.properties,
  syncTargetSecrets: Type.Optional(TargetSecrets),
});
export const Client = Type.Object({
  clientId: Type.String(),
  studioId: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
});
/** A client as created: the only answer that shows its secret. */
export const CreatedClient = Type.Object(
  { ...Client.properties, clientSecret: Type.String() },
  {
    examples: [
      {
        clientId: '55d4fb54-6833-4ad9-9410-5a7e66159c6e',
        studioId: 'shop',
        name: 'ci',
        scopes: ['commercestudio.rules', 'commercestudio.rewrites'],
        createdAt: '2026-11-24T06:28:36.040Z',
        clientSecret: 'keIA3RPqfbsIkerPhilCu0YtNBtM2pCCyhHTPiFgG4M',
      },
    ],
  },
);

// Examples from the README: the studio `shop` with the API client `ci`.
const StudioId = withExamples(IdString, 'shop');

export const StudioParams = Type.Object({ id: StudioId });
export const ClientParams = Type.Object({
  id: StudioId,
  clientId: Type.String({ examples: ['55d4fb54-6833-4ad9-9410-5a7e66159c6e'] }),
});
export const StudioCreateBody = Type.Object(
  { id: StudioId, name: Name },
  { additionalProperties: false, examples: [{ id: 'shop', name: 'Shop' }] },
);
export const StudioChangeBody = Type.Object(
  { name: Type.Optional(Name), syncTargets: Type.Optional(Type.Array(WebhookUrl, { maxItems: 20 })) },
  {
    additionalProperties: false,
    examples: [{ name: 'Shop', syncTargets: ['https://hooks.example.com/searchdeck'] }],
  },
);
export const StudioDeleteQuery = Type.Object({ force: Type.Optional(Type.Boolean()) });
export const ClientCreateBody = Type.Object(
  { name: Name, scopes: Type.Optional(Type.Array(Type.Enum(SCOPES), { minItems: 1 })) },
  {
    additionalProperties: false,
    examples: [{ name: 'ci' }, { name: 'merchandising', scopes: ['commercestudio.rules'] }],
  },
);

export const studioErrors = { ...adminErrors, 409: Type.Ref('ErrorBody') };
