import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Registry } from 'prom-client';
import type { TSchema } from 'typebox';
import type { Config } from '../config.js';
import type { JobMetrics } from '../jobs/job-metrics.js';
import type { Store } from '../storage/database.js';
import type { CompileTime } from './validation.js';

/** What every area gets from the app: storage, keys, configuration, metrics, the clock. */
export interface AppContext {
  readonly config: Config;
  readonly store: Store;
  readonly secretKey: Buffer;
  readonly metrics: Registry;
  /** Runs, durations and lease of the background jobs, shared by every job of the app. */
  readonly jobs: JobMetrics;
  readonly log: FastifyBaseLogger;
  readonly now: () => Date;
  readonly tuning: Tuning;
  /**
   * Aborted when a shutdown's grace period runs out (http/shutdown.ts): an outgoing call a
   * request waits on gives up with it, and the request is answered 503.
   */
  readonly stopping: AbortSignal;
}

/** Timings that tests shorten; the service runs with the defaults. */
export interface Tuning {
  /** Delays between webhook delivery attempts of rule sync (ms). */
  readonly syncRetryDelaysMs?: readonly number[];
  /** How often webhook delivery looks at its outbox when nothing wakes it (ms; 1000). */
  readonly syncPollMs?: number;
  /** How long a typeahead index may go unused before it is dropped from memory (ms). */
  readonly typeaheadIdleMs?: number;
  /** Whether routes answer plain requests before routing (on unless a test compares the two). */
  readonly earlyAnswers?: boolean;
  /** How often each change feed compares its versions with the database's (ms; 1000). */
  readonly changePollMs?: number;
  /** How often the query endpoint's batched search logs are written (ms; 1000). */
  readonly searchLogFlushMs?: number;
  /** Whether the analytics rollup runs on its schedule (every 5 s; tests roll when they say). */
  readonly analyticsRollup?: boolean;
  /** When route schemas are compiled (at start unless a test says at first use). */
  readonly compileSchemas?: CompileTime;
}

/**
 * The app as routes are declared on: typed by the TypeBox type provider, so a handler's
 * request and reply types come from the route's schemas. `buildApp` types the app once; a
 * plugin registered inside keeps the type by declaring its instance a `TypedApp`.
 */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * An area of the service. `admin` routes are mounted under `/api` and again under
 * `/api/apps/{app}`, behind admin authentication; `public` routes at the root, with
 * whatever credential their interface uses.
 */
export interface Area {
  readonly name: string;
  /** Shared schemas (with `$id`) that routes refer to; added once, at the root. */
  readonly schemas?: TSchema[];
  admin?(api: TypedApp, ctx: AppContext): void | Promise<void>;
  public?(app: TypedApp, ctx: AppContext): void | Promise<void>;
}

/** The app of an app-scoped admin request (`/api/apps/{app}/…`), or undefined at `/api/…`. */
export function appScope(request: FastifyRequest): string | undefined {
  return (request.params as { app?: string } | undefined)?.app;
}
