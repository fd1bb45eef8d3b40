import { type Static, Type } from 'typebox';
import { SCALAR_STRINGS } from '../http/scalar-strings.js';
import { IdString, withExamples } from '../http/schemas.js';

/** What answers carry in place of a secret that is set. */
export const SECRET_MASK = '********';

export const authTypes = ['NONE', 'BASIC', 'KERBEROS'] as const;

const MAX_INT32 = 2 ** 31 - 1;

// The limits of each field, shared by the request schema (with defaults) and the response schema
// (without: Fastify's serializer would fill defaults into answers).
const limits = {
  connectString: {
    minLength: 1,
    maxLength: 2048,
    description:
      'cloud: the ZooKeeper connect string host:port[,host:port…][/chroot]; standalone: the Solr base URL',
  },
  cloud: { description: 'true: SolrCloud managed by ZooKeeper; false: one standalone Solr node' },
  zkClientTimeout: { minimum: 1000, maximum: 600_000, description: 'ZooKeeper session timeout, ms' },
  zkConnectTimeout: {
    minimum: 100,
    maximum: 600_000,
    description: 'ms; bounds the whole connectivity check',
  },
  bufferCommitWithin: {
    minimum: -1,
    maximum: MAX_INT32,
    description: 'ms: the commitWithin of buffered writes to this cluster (-1 or 0: none, as in Solr)',
  },
  bufferFlushInterval: { minimum: 0, maximum: MAX_INT32, description: 'ms' },
  bufferSize: { minimum: 1, maximum: MAX_INT32, description: 'documents' },
  concurrency: { minimum: 1, maximum: 1024 },
  validateCluster: {
    description: 'when true, every create or update of this definition is verified first',
  },
} as const;

export const clusterDefaults = {
  cloud: true,
  zkClientTimeout: 30_000,
  zkConnectTimeout: 60_000,
  bufferCommitWithin: 10_000,
  bufferFlushInterval: 1000,
  bufferSize: 100,
  concurrency: 10,
  validateCluster: false,
} as const;

const AuthType = Type.Enum(authTypes, { description: 'NONE, BASIC (username, password) or KERBEROS' });

const AuthConfigInput = Type.Object(
  {
    authType: AuthType,
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: `write-only; on PUT, absent or "${SECRET_MASK}" keeps the stored password`,
      }),
    ),
    principal: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    keyTab: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 65_536,
        description: `base64 keytab content or an absolute path on the server; write-only like password`,
      }),
    ),
  },
  { additionalProperties: false },
);

const ReadOnly = Type.Optional(Type.String({ description: 'read-only; accepted and ignored in requests' }));

const inputFields = {
  connectString: Type.String({ ...limits.connectString, examples: ['zk1:2181/solr'] }),
  cloud: Type.Optional(Type.Boolean({ ...limits.cloud, default: clusterDefaults.cloud })),
  zkClientTimeout: Type.Optional(
    Type.Integer({ ...limits.zkClientTimeout, default: clusterDefaults.zkClientTimeout }),
  ),
  zkConnectTimeout: Type.Optional(
    Type.Integer({ ...limits.zkConnectTimeout, default: clusterDefaults.zkConnectTimeout }),
  ),
  bufferCommitWithin: Type.Optional(
    Type.Integer({ ...limits.bufferCommitWithin, default: clusterDefaults.bufferCommitWithin }),
  ),
  bufferFlushInterval: Type.Optional(
    Type.Integer({ ...limits.bufferFlushInterval, default: clusterDefaults.bufferFlushInterval }),
  ),
  bufferSize: Type.Optional(Type.Integer({ ...limits.bufferSize, default: clusterDefaults.bufferSize })),
  concurrency: Type.Optional(Type.Integer({ ...limits.concurrency, default: clusterDefaults.concurrency })),
  authConfig: Type.Optional(
    Type.Object(AuthConfigInput.properties, { additionalProperties: false, default: { authType: 'NONE' } }),
  ),
  validateCluster: Type.Optional(
    Type.Boolean({ ...limits.validateCluster, default: clusterDefaults.validateCluster }),
  ),
  createdAt: ReadOnly,
  updatedAt: ReadOnly,
};

// Existing clients send integers and booleans as strings (the specification keeps them working);
// any other type mismatch is a 400.
const bodyOptions = {
  additionalProperties: false,
  [SCALAR_STRINGS]: true,
  description: 'integer and boolean fields also take their plain string form ("3000", "true")',
} as const;

/** The body of `PUT /searchCluster/{id}`: the id comes from the path (a different one is a 400). */
export const SearchClusterBody = Type.Object(
  { id: Type.Optional(IdString), ...inputFields },
  {
    ...bodyOptions,
    $id: 'SearchClusterBody',
    examples: [
      {
        connectString: 'zk1:2181/solr',
        zkConnectTimeout: 30000,
        authConfig: { authType: 'BASIC', username: 'searchdeck', password: SECRET_MASK },
      },
    ],
  },
);

/** The body of `POST /searchCluster`: as for PUT, with the id required. */
export const NewSearchClusterBody = Type.Object(
  { id: IdString, ...inputFields },
  {
    ...bodyOptions,
    $id: 'NewSearchClusterBody',
    examples: [
      {
        id: 'products',
        connectString: 'zk1:2181/solr',
        authConfig: { authType: 'BASIC', username: 'searchdeck', password: 's3cret-pa55' },
      },
    ],
  },
);

const AuthConfigView = Type.Object({
  authType: AuthType,
  username: Type.Optional(Type.String()),
  password: Type.Optional(Type.Literal(SECRET_MASK)),
  principal: Type.Optional(Type.String()),
  keyTab: Type.Optional(Type.Literal(SECRET_MASK)),
});

/** A stored definition as answered: secrets masked. */
export const SearchClusterSchema = Type.Object(
  {
    id: IdString,
    connectString: Type.String(limits.connectString),
    cloud: Type.Boolean(limits.cloud),
    zkClientTimeout: Type.Integer(limits.zkClientTimeout),
    zkConnectTimeout: Type.Integer(limits.zkConnectTimeout),
    bufferCommitWithin: Type.Integer(limits.bufferCommitWithin),
    bufferFlushInterval: Type.Integer(limits.bufferFlushInterval),
    bufferSize: Type.Integer(limits.bufferSize),
    concurrency: Type.Integer(limits.concurrency),
    authConfig: AuthConfigView,
    validateCluster: Type.Boolean(limits.validateCluster),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    $id: 'SearchCluster',
    examples: [
      {
        id: 'products',
        connectString: 'zk1:2181/solr',
        cloud: true,
        zkClientTimeout: 30000,
        zkConnectTimeout: 60000,
        bufferFlushInterval: 1000,
        bufferSize: 100,
        bufferCommitWithin: 10000,
        concurrency: 10,
        authConfig: { authType: 'BASIC', username: 'searchdeck', password: SECRET_MASK },
        validateCluster: false,
        createdAt: '2026-11-21T19:15:31.018Z',
        updatedAt: '2026-11-21T19:15:31.018Z',
      },
    ],
  },
);

const CheckStepSchema = Type.Object({
  step: Type.Enum(['zookeeper-connect', 'solrcloud-state', 'live-nodes', 'solr-node']),
  ok: Type.Boolean(),
  ms: Type.Integer(),
  message: Type.String(),
});

/** The answer of `GET /searchCluster/{id}/status` when every step passed (a failure is a 400). */
export const ClusterStatusSchema = Type.Object(
  { id: IdString, ok: Type.Literal(true), steps: Type.Array(CheckStepSchema) },
  {
    $id: 'SearchClusterStatus',
    examples: [
      {
        id: 'products',
        ok: true,
        steps: [
          { step: 'zookeeper-connect', ok: true, ms: 15, message: 'connected to ZooKeeper at zk1:2181/solr' },
          {
            step: 'solrcloud-state',
            ok: true,
            ms: 2,
            message: 'ZooKeeper at zk1:2181/solr holds SolrCloud state',
          },
          { step: 'live-nodes', ok: true, ms: 1, message: '1 live Solr node(s) registered' },
          {
            step: 'solr-node',
            ok: true,
            ms: 21,
            message: 'Solr 9.8.1 answered at http://solr1:8983/solr (mode solrcloud)',
          },
        ],
      },
    ],
  },
);

export const ClusterNodeSchema = Type.Object(
  {
    name: Type.String({ description: 'the live-node name, host:port_context' }),
    baseUrl: Type.String(),
    state: Type.Enum(['live', 'down', 'unknown']),
  },
  {
    $id: 'SearchClusterNode',
    examples: [{ name: 'solr1:8983_solr', baseUrl: 'http://solr1:8983/solr', state: 'live' }],
  },
);

/** A Solr node's answer to `/admin/info/system`, passed on as the node gave it. */
export const SolrSystemInfoSchema = Type.Object(
  {
    lucene: Type.Object(
      { 'solr-spec-version': Type.String() },
      { additionalProperties: true, description: 'versions of Solr and Lucene' },
    ),
    mode: Type.Optional(Type.String({ description: 'solrcloud or std' })),
  },
  {
    $id: 'SolrSystemInfo',
    additionalProperties: true,
    description: "the node's own answer (jvm, system, lucene, …), as Solr gives it",
  },
);

export const SystemInfoQuery = Type.Object({
  nodeName: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'a live node (host:port_context, like 10.0.1.11:8983_solr): that node only',
    }),
  ),
  all: Type.Boolean({
    default: false,
    description: "true: every live node's system information, by node name",
  }),
});

export const IdParams = Type.Object({ id: withExamples(IdString, 'products') });

export const ValidateQuery = Type.Object({
  validate: Type.Boolean({ default: false, description: 'run the connectivity check first' }),
});

export const DeleteQuery = Type.Object({
  force: Type.Boolean({ default: false, description: 'delete even when something depends on it' }),
});

export type SearchClusterInput = Static<typeof SearchClusterBody>;
export type SolrSystemInfoDocument = Static<typeof SolrSystemInfoSchema>;
export type AuthConfigInput = Static<typeof AuthConfigInput>;
export type AuthType = (typeof authTypes)[number];
