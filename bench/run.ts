import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { clustersBenchmark } from './clusters.js';
import { root } from './lib.js';
import { linksBenchmark } from './links.js';
import { rulesBenchmark } from './rules.js';
import { typeaheadBenchmark } from './typeahead.js';

/** A benchmark scenario: it runs, and answers the markdown section for docs/benchmarks.md. */
export interface Benchmark {
  name: string;
  run(): Promise<string>;
}

const benchmarks: Benchmark[] = [linksBenchmark, clustersBenchmark, typeaheadBenchmark, rulesBenchmark];

const file = join(root, 'docs', 'benchmarks.md');

/** Replaces (or appends) the section of one benchmark, keeping the others from earlier runs. */
function writeSection(name: string, section: string): void {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${start}\n${section.trim()}\n${end}`;
  const pattern = new RegExp(`${start}[\\s\\S]*?${end}`);
  const header = `# Benchmarks\n\nWritten by \`npm run bench\` (scripts in \`bench/\`); each section keeps the date and machine of its own last run. Run one area with \`npm run bench -- links\`.\n`;
  const body = previous ? previous : header;
  writeFileSync(file, pattern.test(body) ? body.replace(pattern, block) : `${body.trimEnd()}\n\n${block}\n`);
}

const wanted = process.argv.slice(2);
const selected = wanted.length ? benchmarks.filter((b) => wanted.includes(b.name)) : benchmarks;
if (selected.length === 0)
  throw new Error(
    `no benchmark named ${wanted.join(', ')}; known: ${benchmarks.map((b) => b.name).join(', ')}`,
  );

execSync('npm run build', { cwd: root, stdio: 'inherit' });
const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB memory, Node.js ${process.version}`;
for (const benchmark of selected) {
  process.stdout.write(`\n== ${benchmark.name}\n`);
  const section = await benchmark.run();
  const stamped = `${section.trim()}\n\n_Measured ${new Date().toISOString().slice(0, 10)} on ${machine}._`;
  process.stdout.write(`${stamped}\n`);
  writeSection(benchmark.name, stamped);
}
