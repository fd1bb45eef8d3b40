// What the processes of one test run share: a directory named after the test runner (its pid
// and start time, so that a reused pid does not inherit an old run's files), removed by a
// later run once that runner is gone.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'searchdeck-run-';

/**
 * The process the run's files belong to: `node --test`, which runs each file (or lane) in a
 * child; a file run alone without it is its own run.
 */
export function runnerPid(): number {
  return process.env.NODE_TEST_CONTEXT === undefined ? process.pid : process.ppid;
}

/** This run's shared directory, created on first use. */
export function runDirectory(): string {
  const runner = runnerPid();
  const dir = join(tmpdir(), `${PREFIX}${runner}-${startTime(runner)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function startTime(pid: number): string {
  try {
    // Field 22 of /proc/<pid>/stat; the command name before it may hold spaces.
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
  } catch {
    return '0';
  }
}

/** Removes the directories of runs whose runner is gone. */
export function removeStaleRuns(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split('-')[0]);
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}
