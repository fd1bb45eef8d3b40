// Users and sessions on the wire.
import { Type } from 'typebox';
import { adminErrors, IdString, withExamples } from '../http/schemas.js';
import { ROLES } from './roles.js';

const Username = withExamples(
  Type.String({ minLength: 1, maxLength: 64, pattern: '^(?!\\.{1,2}$)[A-Za-z0-9._@-]+$' }),
  'mira',
);
const Password = Type.String({ minLength: 8, maxLength: 1024, description: 'At least 8 characters' });
const Role = Type.Union(
  ROLES.map((role) => Type.Literal(role)),
  { description: 'admin: everything; merchandiser: the listed studios and instances; viewer: read-only' },
);
const Ids = Type.Array(IdString, { maxItems: 1000 });

export const User = Type.Object(
  {
    username: Type.String(),
    role: Type.String(),
    studios: Type.Array(Type.String()),
    typeaheadInstances: Type.Array(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    examples: [
      {
        username: 'mira',
        role: 'merchandiser',
        studios: ['shop'],
        typeaheadInstances: ['shop-typeahead'],
        createdAt: '2026-11-24T07:30:00.000Z',
        updatedAt: '2026-11-24T07:30:00.000Z',
      },
    ],
  },
);

export const UserParams = Type.Object({ username: Username });

export const UserCreateBody = Type.Object(
  {
    username: Username,
    password: Password,
    role: Role,
    studios: Type.Optional(Ids),
    typeaheadInstances: Type.Optional(Ids),
  },
  { additionalProperties: false },
);

export const UserChangeBody = Type.Object(
  {
    password: Type.Optional(Password),
    role: Type.Optional(Role),
    studios: Type.Optional(Ids),
    typeaheadInstances: Type.Optional(Ids),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const SignInBody = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 1024 }), password: Type.String({ maxLength: 1024 }) },
  { additionalProperties: false },
);

/** Who is signed in, and the token their state-changing requests must send. */
export const SessionInfo = Type.Object({
  username: Type.String(),
  role: Type.String(),
  studios: Type.Array(Type.String()),
  typeaheadInstances: Type.Array(Type.String()),
  csrfToken: Type.String({ description: 'Send it as `x-csrf-token` with every POST, PUT, PATCH, DELETE' }),
});

export const userErrors = {
  ...adminErrors,
  403: adminErrors[401],
  409: adminErrors[401],
};
