// One load round against a server process, as the side-by-side tables report it.
import autocannon from 'autocannon';
import type { Measure } from './compare.js';
import { type LoadOptions, loadWithCpu, rssMiB } from './lib.js';

/** Drives the server at `pid` and answers the round's figures (errors include non-2xx answers). */
export async function measureServer(pid: number, options: LoadOptions): Promise<Measure> {
  const result = await loadWithCpu(pid, options);
  return {
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    errors: result.errors + result.non2xx,
    cpuPerRequest: result.cpuPerRequest,
    rssMiB: rssMiB(pid),
  };
}

/** Runs every side once per round, starting each round with the next side, so drift is shared. */
export async function rotatingRounds<K extends string>(
  rounds: number,
  sides: Record<K, () => Promise<Measure>>,
): Promise<Record<K, Measure[]>> {
  const names = Object.keys(sides) as K[];
  const results = Object.fromEntries(names.map((name) => [name, [] as Measure[]])) as Record<K, Measure[]>;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length]!;
      results[name].push(await sides[name]());
    }
  }
  return results;
}

/**
 * One side of a comparison whose n-th round sends the request stream `pathsOfRound(n)`:
 * sides made with the same function receive the same requests, round by round, so the load
 * generator (which shares the machine's cores) does the same work for each.
 */
export function sideByRound(
  pid: number,
  options: Omit<LoadOptions, 'path'>,
  pathsOfRound: (round: number) => () => string,
): () => Promise<Measure> {
  let round = 0;
  return () => measureServer(pid, { ...options, path: pathsOfRound(round++) });
}

/** Paths over a list of queries, each round starting further into the list. */
export function queryStream(queries: readonly string[], path: (q: string) => string) {
  return (round: number) => {
    let next = round * 997;
    return () => path(encodeURIComponent(queries[next++ % queries.length]!));
  };
}

/** One side of an interleaved load: its own headers and its own stream of paths. */
export interface InterleavedSide {
  headers: Record<string, string>;
  path: () => string;
}

/**
 * The sides' requests in turn on every connection (the first side's, the second's, …, the
 * first's again): each answer's time is the side's, and every moment of the machine, however
 * fast its cores run then, is shared by all sides alike. The turn goes round in both
 * directions, starting with each side in turn, `seconds` in all: so no side always follows
 * the same one, whose leftovers (a write it queued, garbage it left) it would always meet.
 * Answers each side's count of answers and mean time to answer (ms). On a closed loop of
 * `connections`, a side's throughput is the connections over its time to answer, so the ratio
 * of two sides' means is the ratio of their throughputs, measured at the same moments rather
 * than in rounds apart.
 */
export async function interleaved(
  url: string,
  connections: number,
  seconds: number,
  sides: readonly InterleavedSide[],
): Promise<{ answers: number; meanMs: number }[]> {
  const totals = sides.map(() => ({ answers: 0, ms: 0 }));
  const forward = sides.map((_, i) => i);
  const legs = [forward, [...forward].reverse()].flatMap((cycle) =>
    cycle.map((_, shift) => cycle.map((_, i) => cycle[(i + shift) % cycle.length]!)),
  );
  for (const order of legs) {
    const taken = await inTurn(
      url,
      connections,
      seconds / legs.length,
      order.map((i) => sides[i]!),
    );
    order.forEach((side, i) => {
      totals[side]!.answers += taken[i]!.answers;
      totals[side]!.ms += taken[i]!.ms;
    });
  }
  return totals.map((t) => ({ answers: t.answers, meanMs: t.ms / t.answers }));
}

/** One leg of `interleaved`: each side's answers and their summed time to answer (ms). */
async function inTurn(
  url: string,
  connections: number,
  seconds: number,
  sides: readonly InterleavedSide[],
): Promise<{ answers: number; ms: number }[]> {
  const totals = sides.map(() => ({ answers: 0, ms: 0 }));
  let failed = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        requests: sides.map((side) => ({
          setupRequest: (request: { path: string; headers: Record<string, string> }) => {
            request.path = side.path();
            request.headers = { ...request.headers, ...side.headers };
            return request;
          },
        })),
      } as autocannon.Options,
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    // Without pipelining a connection has one request out at a time, and its iterator still
    // points at it when the answer is reported (autocannon moves on after the event).
    instance.on('response', (client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 300) failed++;
      const index = (client as { requestIterator: { currentRequestIndex: number } }).requestIterator
        .currentRequestIndex;
      totals[index]!.answers++;
      totals[index]!.ms += ms;
    });
  });
  if (failed > 0 || result.errors + result.timeouts > 0)
    throw new Error(`interleaved load: ${failed} refused, ${result.errors + result.timeouts} failed`);
  // Each connection answers the sides in turn, so their counts differ by a turn at most.
  const counts = totals.map((t) => t.answers);
  if (Math.max(...counts) - Math.min(...counts) > connections)
    throw new Error(`interleaved load: the sides' answers were not taken in turn (${counts.join(', ')})`);
  return totals;
}
