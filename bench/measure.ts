// One load round against a server process, as the side-by-side tables report it.
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
