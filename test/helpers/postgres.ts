import pg from 'pg';

export const testDatabaseUrl =
  process.env.SEARCHDECK_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let availability: Promise<string | undefined> | undefined;

/**
 * Why PostgreSQL tests cannot run here, or undefined when they can. Under CI=true an
 * unreachable PostgreSQL is an error: CI must run them.
 */
export function postgresSkipReason(): Promise<string | undefined> {
  availability ??= (async () => {
    // Generous: a loaded machine can take seconds to start a test file's first connection,
    // and under CI=true a slow answer would fail the whole file as "unreachable".
    const client = new pg.Client({ connectionString: testDatabaseUrl, connectionTimeoutMillis: 15_000 });
    try {
      await client.connect();
      await client.query('select 1');
      return undefined;
    } catch (error) {
      const reason = `PostgreSQL is not reachable at ${testDatabaseUrl} (${(error as Error).message})`;
      if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires it`);
      return reason;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return availability;
}
