/**
 * Measures the in-memory suggestion index: build time for one instance of
 * 5,000 terms, per-request cost of cached and uncached answers, and resident
 * memory with 1,000 such instances. Run: node --import tsx bench/typeahead-index.ts
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { termKey } from '../src/text/term-key.js';
import { DEFAULT_SUGGESTION_LIMIT } from '../src/typeahead/schemas.js';
import { suggestionAnswer } from '../src/typeahead/suggestion-answer.js';
import {
  buildSuggestionIndex,
  type SuggestionIndex,
  type SuggestionSource,
} from '../src/typeahead/suggestion-index.js';
import { randomTerms, seededRandom } from './typeahead-data.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const TERMS_PER_INSTANCE = 5000;
const INSTANCES = Number(process.argv[2] ?? 1000);

function instanceSource(seed: number): SuggestionSource {
  const random = seededRandom(seed);
  return {
    included: randomTerms(random, 3900),
    excluded: randomTerms(random, 300),
    topSearched: randomTerms(random, 1100),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timePerCall(calls: number, run: (i: number) => unknown): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) run(i);
  return Number(process.hrtime.bigint() - start) / calls;
}

function measureBuild(): SuggestionIndex {
  const source = instanceSource(1);
  const builds: number[] = [];
  let index = buildSuggestionIndex(source);
  for (let run = 0; run < 30; run++) {
    const start = performance.now();
    index = buildSuggestionIndex(source);
    builds.push(performance.now() - start);
  }
  const terms = source.included.length + source.topSearched.length;
  console.log(`build: ${terms} terms in, ${index.size} served`);
  console.log(`  median ${median(builds).toFixed(2)} ms, max ${Math.max(...builds).toFixed(2)} ms (30 runs)`);
  return index;
}

function typedPrefixes(index: SuggestionIndex, count: number, maxLength: number): string[] {
  const random = seededRandom(count * maxLength);
  const all = index.suggestions('', TERMS_PER_INSTANCE);
  // Prefixes as visitors type them: the start of a real term, in its display case.
  return Array.from({ length: count }, () => {
    const term = all[Math.floor(random() * all.length)]!;
    return term.slice(0, 1 + Math.floor(random() * maxLength));
  });
}

function measureQueries(index: SuggestionIndex): void {
  const limit = DEFAULT_SUGGESTION_LIMIT;
  const calls = 200_000;
  const short = typedPrefixes(index, 200, 2);
  const varied = typedPrefixes(index, 2000, 6);
  for (const prefix of short) index.answer(prefix, limit);
  const at = (prefixes: string[]) => (i: number) => prefixes[i % prefixes.length]!;
  const cached = timePerCall(calls, (i) => index.answer(at(short)(i), limit));
  const mixed = timePerCall(calls, (i) => index.answer(at(varied)(i), limit));
  const folding = timePerCall(calls, (i) => termKey(at(varied)(i)));
  const search = timePerCall(calls, (i) => index.suggestions(at(varied)(i), limit));
  const uncached = timePerCall(calls, (i) => suggestionAnswer(index.suggestions(at(varied)(i), limit)));
  console.log(`query, limit ${limit}, time per call:`);
  console.log(`  cached answer (200 prefixes of 1-2 characters)  ${cached.toFixed(0)} ns`);
  console.log(`  answer() over 2,000 prefixes of 1-6 characters  ${mixed.toFixed(0)} ns (cache overflows)`);
  console.log(`  uncached: key of the prefix                     ${folding.toFixed(0)} ns`);
  console.log(`  uncached: key + search + slice                  ${search.toFixed(0)} ns`);
  console.log(`  uncached: key + search + JSON + ETag            ${uncached.toFixed(0)} ns`);
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

function measureMemory(): void {
  collectGarbage();
  const before = process.memoryUsage();
  const indexes: SuggestionIndex[] = [];
  const start = performance.now();
  for (let i = 0; i < INSTANCES; i++) indexes.push(buildSuggestionIndex(instanceSource(1000 + i)));
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  collectGarbage();
  const built = process.memoryUsage();
  // Warm every answer cache the way typing visitors would: one and two letters.
  const starts = 'abcdefghijklmnopqrstuvwxyzé'.split('');
  for (const index of indexes) {
    for (const first of starts) {
      index.answer(first, DEFAULT_SUGGESTION_LIMIT);
      for (const second of starts) index.answer(first + second, DEFAULT_SUGGESTION_LIMIT);
    }
  }
  collectGarbage();
  const warmed = process.memoryUsage();
  console.log(`memory: ${INSTANCES} instances (generated and built in ${seconds} s)`);
  console.log(`  before        rss ${mebibytes(before.rss)}, heap ${mebibytes(before.heapUsed)}`);
  console.log(`  built         rss ${mebibytes(built.rss)}, heap ${mebibytes(built.heapUsed)}`);
  console.log(`  caches warm   rss ${mebibytes(warmed.rss)}, heap ${mebibytes(warmed.heapUsed)}`);
  const perInstance = (usage: NodeJS.MemoryUsage) => (usage.heapUsed - before.heapUsed) / INSTANCES / 1024;
  console.log(
    `  per instance  ${perInstance(built).toFixed(0)} KiB built, ${perInstance(warmed).toFixed(0)} KiB warm`,
  );
  // Reading the indexes here keeps them alive through the measurements above.
  const served = indexes.reduce((sum, index) => sum + index.size, 0);
  console.log(`  ${(served / INSTANCES).toFixed(0)} suggestions served per instance on average`);
}

measureQueries(measureBuild());
measureMemory();
