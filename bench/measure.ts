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
