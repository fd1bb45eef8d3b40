import { parseArgs } from 'node:util';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { parseTrustedProxies } from './http/trust-proxy.js';

/** Every setting of the service: its variable, its flag, and the schema its value must satisfy. */
const settings = {
  host: { env: 'SEARCHDECK_HOST', schema: Type.String({ minLength: 1 }), default: '127.0.0.1' },
  port: { env: 'SEARCHDECK_PORT', schema: Type.Integer({ minimum: 0, maximum: 65535 }), default: 8764 },
  dataDir: { env: 'SEARCHDECK_DATA_DIR', schema: Type.String({ minLength: 1 }), default: './data' },
  databaseUrl: {
    env: 'SEARCHDECK_DATABASE_URL',
    schema: Type.String({ pattern: '^postgres(ql)?://' }),
    default: undefined,
  },
  adminPassword: {
    env: 'SEARCHDECK_ADMIN_PASSWORD',
    schema: Type.String({ minLength: 8 }),
    default: undefined,
  },
  secretKey: {
    env: 'SEARCHDECK_SECRET_KEY',
    // 32 bytes in base64 are 44 characters with padding; checked for length after decoding below.
    schema: Type.String({ pattern: '^[A-Za-z0-9+/_-]{42,43}=?$' }),
    default: undefined,
  },
  oidcIssuer: {
    env: 'SEARCHDECK_OIDC_ISSUER',
    schema: Type.String({ pattern: '^https?://' }),
    default: undefined,
  },
  oidcJwksUrl: {
    env: 'SEARCHDECK_OIDC_JWKS_URL',
    schema: Type.String({ pattern: '^https?://' }),
    default: undefined,
  },
  oidcAudience: {
    env: 'SEARCHDECK_OIDC_AUDIENCE',
    schema: Type.String({ minLength: 1 }),
    default: undefined,
  },
  oidcStudioClaim: {
    env: 'SEARCHDECK_OIDC_STUDIO_CLAIM',
    schema: Type.String({ minLength: 1 }),
    default: 'studio_id',
  },
  statementTimeoutMs: {
    env: 'SEARCHDECK_STATEMENT_TIMEOUT_MS',
    // PostgreSQL: no statement may run longer; SQLite: no write waits longer for another
    // process's lock (busy_timeout). 0 would switch the bound off, so it is refused.
    schema: Type.Integer({ minimum: 1, maximum: 3_600_000 }),
    default: 5000,
  },
  pgParallelWorkers: {
    env: 'SEARCHDECK_PG_PARALLEL_WORKERS',
    // PostgreSQL only: max_parallel_workers_per_gather of every connection (see operations.md).
    schema: Type.Integer({ minimum: 0, maximum: 64 }),
    default: 0,
  },
  trustProxy: {
    env: 'SEARCHDECK_TRUST_PROXY',
    // Off, a list of proxy addresses and ranges, or `true`: read by parseTrustedProxies.
    schema: Type.String({ minLength: 1 }),
    default: undefined,
  },
  historyRetentionDays: {
    env: 'SEARCHDECK_HISTORY_RETENTION_DAYS',
    // History events older than this are pruned by the hourly job.
    schema: Type.Integer({ minimum: 1, maximum: 36_500 }),
    default: 90,
  },
  analyticsRetentionDays: {
    env: 'SEARCHDECK_ANALYTICS_RETENTION_DAYS',
    // Hourly and daily analytics rollups older than this are pruned (13 months by default).
    schema: Type.Integer({ minimum: 1, maximum: 36_500 }),
    default: 396,
  },
  signalsRetentionDays: {
    env: 'SEARCHDECK_SIGNALS_RETENTION_DAYS',
    // Raw signals (response signals and posted events) older than this are pruned by the hourly job.
    schema: Type.Integer({ minimum: 1, maximum: 3650 }),
    default: 30,
  },
  sessionIdleMinutes: {
    env: 'SEARCHDECK_SESSION_IDLE_MINUTES',
    // A console session unused for this long ends (8 hours by default, 30 days at most).
    schema: Type.Integer({ minimum: 1, maximum: 43_200 }),
    default: 480,
  },
  sessionMaxHours: {
    env: 'SEARCHDECK_SESSION_MAX_HOURS',
    // A console session ends this long after signing in, however much it is used (7 days by default).
    schema: Type.Integer({ minimum: 1, maximum: 8760 }),
    default: 168,
  },
  cookieSecure: {
    env: 'SEARCHDECK_COOKIE_SECURE',
    // The session cookie is Secure over HTTPS anyway; this makes it so behind a TLS proxy too.
    schema: Type.Boolean(),
    default: false,
  },
  requestTimeoutMs: {
    env: 'SEARCHDECK_REQUEST_TIMEOUT_MS',
    // A request's line, headers and body must all arrive within this; else 408 and the connection closes.
    schema: Type.Integer({ minimum: 100, maximum: 3_600_000 }),
    default: 30_000,
  },
  maxConnectionsPerAddress: {
    env: 'SEARCHDECK_MAX_CONNECTIONS_PER_ADDRESS',
    // Open connections one client address may hold (0: no cap); trusted proxies are not capped.
    schema: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    default: 256,
  },
  shutdownGraceMs: {
    env: 'SEARCHDECK_SHUTDOWN_GRACE_MS',
    // From a stop signal to the exit: requests under way finish, or are answered 503, within it.
    schema: Type.Integer({ minimum: 2000, maximum: 600_000 }),
    default: 10_000,
  },
  logLevel: {
    env: 'SEARCHDECK_LOG_LEVEL',
    schema: Type.Union([
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ]),
    default: 'info',
  },
} as const;

type Settings = typeof settings;
export type SettingName = keyof Settings;

export type Config = Readonly<{
  [K in SettingName]: Settings[K]['default'] extends undefined
    ? Static<Settings[K]['schema']> | undefined
    : Static<Settings[K]['schema']>;
}>;

/**
 * A start the operator fixes through a setting: an invalid value, or one the machine refuses
 * (a port in use, a data dir that cannot be written, a database that cannot be reached). Its
 * message is one line that names the setting; the CLI prints it without a stack.
 */
export class ConfigError extends Error {}

/** How messages name a setting: `SEARCHDECK_DATA_DIR (--data-dir)`. */
export function settingLabel(name: SettingName): string {
  return `${settings[name].env} (--${flagName(name)})`;
}

/** Flag name of a setting: `dataDir` → `--data-dir`. */
export function flagName(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The table of settings, for `--help` and the README. */
export function describeSettings(): Array<{ env: string; flag: string; default: string }> {
  return Object.entries(settings).map(([name, s]) => ({
    env: s.env,
    flag: `--${flagName(name)}`,
    default: s.default === undefined ? '(unset)' : String(s.default),
  }));
}

/**
 * Builds the one validated, frozen configuration from environment variables,
 * overridden by `serve` flags. An invalid value throws a ConfigError naming the variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = []): Config {
  const options = Object.fromEntries(
    Object.keys(settings).map((name) => [flagName(name), { type: 'string' as const }]),
  );
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const config: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(settings) as Array<[SettingName, Settings[SettingName]]>) {
    const flag = flags[flagName(name)];
    const raw = typeof flag === 'string' ? flag : env[setting.env];
    if (raw === undefined || raw === '') {
      config[name] = setting.default;
      continue;
    }
    const value = Value.Convert(setting.schema, raw);
    // Convert is lenient ("1.5" becomes 1); a number must be written exactly as one.
    const exact = typeof value !== 'number' || String(value) === raw.trim();
    if (!exact || !Value.Check(setting.schema, value)) {
      throw new ConfigError(`${settingLabel(name)} is invalid: ${describeProblem(name, raw)}`);
    }
    config[name] = value;
  }
  if (typeof config.secretKey === 'string' && Buffer.from(config.secretKey, 'base64').length !== 32) {
    throw new ConfigError('SEARCHDECK_SECRET_KEY (--secret-key) is invalid: it must be 32 bytes in base64');
  }
  if (typeof config.trustProxy === 'string') {
    try {
      parseTrustedProxies(config.trustProxy);
    } catch (error) {
      throw new ConfigError(`SEARCHDECK_TRUST_PROXY (--trust-proxy) is invalid: ${(error as Error).message}`);
    }
  }
  if ((config.oidcIssuer === undefined) !== (config.oidcJwksUrl === undefined)) {
    throw new ConfigError(
      'SEARCHDECK_OIDC_ISSUER and SEARCHDECK_OIDC_JWKS_URL (--oidc-issuer, --oidc-jwks-url) go together: set both or neither',
    );
  }
  return Object.freeze(config) as Config;
}

function describeProblem(name: SettingName, raw: string): string {
  switch (name) {
    case 'port':
      return `"${raw}" is not a port number (0-65535)`;
    case 'databaseUrl':
      return 'it must be a postgres:// or postgresql:// URL';
    case 'adminPassword':
      return 'it must be at least 8 characters long';
    case 'secretKey':
      return 'it must be 32 bytes in base64';
    case 'oidcIssuer':
    case 'oidcJwksUrl':
      return 'it must be an http:// or https:// URL';
    case 'statementTimeoutMs':
      return `"${raw}" is not a number of milliseconds (1-3600000)`;
    case 'pgParallelWorkers':
      return `"${raw}" is not a number of workers (0-64)`;
    case 'signalsRetentionDays':
      return `"${raw}" is not a number of days (1-3650)`;
    case 'sessionIdleMinutes':
      return `"${raw}" is not a number of minutes (1-43200)`;
    case 'sessionMaxHours':
      return `"${raw}" is not a number of hours (1-8760)`;
    case 'requestTimeoutMs':
      return `"${raw}" is not a number of milliseconds (100-3600000)`;
    case 'maxConnectionsPerAddress':
      return `"${raw}" is not a number of connections (0-1000000; 0 for no cap)`;
    case 'shutdownGraceMs':
      return `"${raw}" is not a number of milliseconds (2000-600000)`;
    case 'cookieSecure':
      return `"${raw}" is not true or false`;
    case 'logLevel':
      return `"${raw}" is not one of fatal, error, warn, info, debug, trace, silent`;
    default:
      return `"${raw}" is not accepted`;
  }
}
