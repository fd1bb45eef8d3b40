// Why the database could not be opened at start, in one sentence an operator can act on.
// Reads the drivers' error codes, so it lives beside unavailable.ts.
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { DatabaseUnavailableError } from './unavailable.js';

/** Where a PostgreSQL URL points, without its password. */
interface Target {
  host: string;
  port: string;
  database: string;
  user: string;
  password: string;
}

function targetOf(url: string): Target {
  try {
    const parsed = new URL(url);
    return {
      host: decodeURIComponent(parsed.hostname) || 'localhost',
      port: parsed.port || '5432',
      database: decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username),
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
    };
  } catch {
    return { host: '?', port: '?', database: '?', user: '?', password: '' };
  }
}

/**
 * What went wrong opening PostgreSQL at `url` (connecting, or the first statement), as a
 * sentence that says what to do; undefined when `error` is no such failure. Never holds
 * the URL's password.
 */
export function postgresOpenFailure(error: unknown, url: string): string | undefined {
  const cause = error instanceof DatabaseUnavailableError ? error.cause : error;
  const target = targetOf(url);
  const at = `PostgreSQL at ${target.host}:${target.port}`;
  const code = (cause as { code?: unknown } | undefined)?.code;
  const sentence = (() => {
    switch (code) {
      case 'ECONNREFUSED':
        return `${at} refuses connections; start PostgreSQL, or correct the host and port in the URL`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `the host "${target.host}" cannot be resolved; correct the host in the URL`;
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return `${at} cannot be reached (${code}); check that it runs and that this machine may connect to it`;
      case '3D000':
        return `the database "${target.database}" does not exist on ${at}; create it (createdb ${target.database}) or correct its name in the URL`;
      case '28P01':
      case '28000':
        return `${at} does not accept the user "${target.user}" (${(cause as Error).message}); correct the user and password in the URL`;
      case '57P03':
        return `${at} is starting up or shutting down; start searchdeck again once it accepts connections`;
      case '53300':
        return `${at} has no connection left (too many clients); raise max_connections or stop idle clients`;
      default:
        break;
    }
    if (cause instanceof pg.DatabaseError) return `${at} refused: ${cause.message} (SQLSTATE ${cause.code})`;
    // pg's own connection errors carry no code ("Connection terminated unexpectedly",
    // "timeout exceeded when trying to connect", TLS refusals); the message is all there is.
    if (error instanceof DatabaseUnavailableError && cause instanceof Error) {
      return `cannot connect to ${at}: ${cause.message}; check that it runs and the URL`;
    }
    return undefined;
  })();
  return sentence && target.password ? sentence.replaceAll(target.password, '***') : sentence;
}

/** What went wrong opening the SQLite file `file`, or undefined when `error` is no such failure. */
export function sqliteOpenFailure(error: unknown, file: string): string | undefined {
  if (!(error instanceof SqliteDatabase.SqliteError)) return undefined;
  if (error.code === 'SQLITE_NOTADB' || error.code.startsWith('SQLITE_CORRUPT')) {
    return `${file} is not a readable SQLite database (${error.code}); restore it from a backup or point the setting at another directory`;
  }
  if (error.code.startsWith('SQLITE_CANTOPEN') || error.code.startsWith('SQLITE_READONLY')) {
    return `${file} cannot be opened for writing (${error.code}); check its owner and permissions`;
  }
  return undefined;
}
