// The Signals API on the wire, in Fusion's shape: a JSON array of `{ id?, type, timestamp?, params }`.
import { type Static, type TSchema, type TUnion, Type } from 'typebox';
import { errorMessage } from '../http/error-message.js';
import { IdString } from '../http/schemas.js';

export const MAX_SIGNALS = 1000;
/** The longest value of a param a shop names itself. */
export const MAX_PARAM_LENGTH = 1000;

const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });

// A union's branches carry the union's message, so the first error of the field says it.
function oneOf<T extends TSchema[]>(message: string, branches: [...T]): TUnion<T> {
  const withMessage = branches.map((branch) => ({ ...branch, ...errorMessage(message) })) as unknown as [
    ...T,
  ];
  return Type.Union(withMessage, errorMessage(message));
}

/** Any other param, kept as sent: a string, a number, a boolean or a list of strings (Fusion's filters). */
const OtherParam = oneOf(
  `must be a string of at most ${MAX_PARAM_LENGTH} characters, a number, a boolean or a list of such strings`,
  [
    Type.String({ maxLength: MAX_PARAM_LENGTH }),
    Type.Number({ minimum: -1e15, maximum: 1e15 }),
    Type.Boolean(),
    Type.Array(Type.String({ maxLength: MAX_PARAM_LENGTH }), { maxItems: 100 }),
  ],
);

const Position = Type.Integer({ minimum: 1, maximum: 1_000_000 });
const Quantity = Type.Integer({ minimum: 0, maximum: 1_000_000 });

const Params = Type.Object(
  {
    query: Type.Optional(Type.String({ maxLength: 1000, description: "The shopper's query" })),
    docId: Type.Optional(Text(512, 'The document the event is about (Fusion also reads `doc_id`)')),
    doc_id: Type.Optional(Text(512)),
    fusion_query_id: Type.Optional(
      Text(128, 'The `x-fusion-query-id` of the answer that showed the document'),
    ),
    user_id: Type.Optional(Text(256, "The shopper's id; stored only as a keyed hash")),
    session: Type.Optional(Text(256, "The shopper's session; stored only as a keyed hash")),
    position: Type.Optional({ ...Position, description: "The document's 1-based place in the results" }),
    res_pos: Type.Optional({ ...Position, description: "Fusion App Insights' name of `position`" }),
    price: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12, description: 'The unit price' })),
    quantity: Type.Optional({ ...Quantity, description: 'How many items (cart, purchase)' }),
    qty: Type.Optional({ ...Quantity, description: 'The same as `quantity`' }),
  },
  { additionalProperties: OtherParam, maxProperties: 100 },
);

const Timestamp = oneOf('must be an ISO 8601 date-time or epoch milliseconds', [
  Type.String({ minLength: 1, maxLength: 64 }),
  Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000 }),
]);

export const SignalSchema = Type.Object(
  {
    id: Type.Optional(
      Text(256, 'Unique per app and collection: a signal whose id is stored already is not stored again'),
    ),
    type: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9_.:-]+$',
      description: "`click`, `cart`, `purchase`, or a type of the shop's own (letters, digits, `_ . : -`)",
    }),
    timestamp: Type.Optional({
      ...Timestamp,
      description: 'ISO 8601 or epoch milliseconds; default: when received',
    }),
    params: Params,
  },
  { additionalProperties: false },
);
export type Signal = Static<typeof SignalSchema>;

export const SignalsBody = Type.Array(SignalSchema, {
  minItems: 1,
  maxItems: MAX_SIGNALS,
  examples: [
    [
      {
        type: 'click',
        timestamp: '2026-11-28T09:15:31.018Z',
        params: {
          query: 'kettle',
          docId: 'P12',
          fusion_query_id: 'bWl4ZWQtc2lnbmFscw',
          user_id: 'u-42',
          position: 3,
        },
      },
    ],
  ],
});

export const SignalsParams = Type.Object({
  app: IdString,
  collection: Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9._-]+$' }),
});

export const SignalsQuery = Type.Object({
  async: Type.Boolean({
    default: false,
    description: 'Answer once the signals are checked; they are written within seconds after',
  }),
  commit: Type.Boolean({
    default: false,
    description:
      "Fusion's: make the signals searchable at once. Accepted; signals are always counted within seconds",
  }),
});

export const SignalsAnswer = Type.Object({
  accepted: Type.Integer({ description: 'How many signals the request carried, all accepted' }),
});
