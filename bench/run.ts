import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { clustersBenchmark } from './clusters.js';
import { earlyBenchmark } from './early.js';
import { type Engine, parseEngineArgs } from './engines.js';
import { evaluateBenchmark } from './evaluate.js';
import { experimentsBenchmark } from './experiments.js';
import { ingestionBenchmark } from './ingestion.js';
import { root } from './lib.js';
import { linksBenchmark } from './links.js';
import { objectsBenchmark, objectsLinksBenchmark } from './objects.js';
import { queryBenchmark } from './query.js';
import { rulesBenchmark } from './rules.js';
import { signalsBenchmark } from './signals.js';
import { startupBenchmark } from './startup.js';
import { typeaheadBenchmark } from './typeahead.js';

/**
 * A benchmark scenario: it runs on one engine and answers its markdown section for
 * docs/benchmarks.md. A scenario that does not yet run on an engine leaves it out of
 * `engines` (all by default), and the run says so.
 */
export interface Benchmark {
  name: string;
  engines?: readonly Engine[];
  run(engine: Engine): Promise<string>;
}

const benchmarks: Benchmark[] = [
  linksBenchmark,
  clustersBenchmark,
  typeaheadBenchmark,
  ingestionBenchmark,
  rulesBenchmark,
  objectsBenchmark,
  objectsLinksBenchmark,
  evaluateBenchmark,
  earlyBenchmark,
  queryBenchmark,
  experimentsBenchmark,
  signalsBenchmark,
  startupBenchmark,
];

const file = join(root, 'docs', 'benchmarks.md');

/** Replaces (or appends) the section of one benchmark, keeping the others from earlier runs. */
function writeSection(name: string, section: string): void {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${start}\n${section.trim()}\n${end}`;
  const pattern = new RegExp(`${start}[\\s\\S]*?${end}`);
  const header = `# Benchmarks\n\nWritten by \`npm run bench\` (scripts in \`bench/\`); each section keeps the date and machine of its own last run. Run one area on one engine with \`npm run bench -- links --engine sqlite\` (\`--engine\` takes sqlite, postgres or both, the default).\n`;
  // A section from before the bench ran per engine (`bench:links`) gives way to the new ones.
  const legacy = new RegExp(
    `<!-- bench:${name.split(':')[0]} -->[\\s\\S]*?<!-- /bench:${name.split(':')[0]} -->\\n*`,
  );
  const body = (previous ? previous : header).replace(legacy, '');
  writeFileSync(file, pattern.test(body) ? body.replace(pattern, block) : `${body.trimEnd()}\n\n${block}\n`);
}

const { engines, names: wanted } = parseEngineArgs(process.argv.slice(2));
const selected = wanted.length ? benchmarks.filter((b) => wanted.includes(b.name)) : benchmarks;
if (selected.length === 0)
  throw new Error(
    `no benchmark named ${wanted.join(', ')}; known: ${benchmarks.map((b) => b.name).join(', ')}`,
  );

execSync('npm run build', { cwd: root, stdio: 'inherit' });
const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB memory, Node.js ${process.version}`;
for (const benchmark of selected) {
  for (const engine of engines) {
    if (benchmark.engines && !benchmark.engines.includes(engine)) {
      process.stdout.write(`\n== ${benchmark.name} (${engine}): not measured on this engine\n`);
      continue;
    }
    process.stdout.write(`\n== ${benchmark.name} (${engine})\n`);
    const section = await benchmark.run(engine);
    const stamped = `${section.trim()}\n\n_Measured ${new Date().toISOString().slice(0, 10)} on ${machine}, ${engine}._`;
    process.stdout.write(`${stamped}\n`);
    writeSection(`${benchmark.name}:${engine}`, stamped);
  }
}
