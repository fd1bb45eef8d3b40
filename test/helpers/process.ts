import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The command line that runs the CLI: the built `dist/` (what `npm start` and the package's
 * `searchdeck` command run), built first when a source file is newer. It starts in about half
 * the time of the TypeScript sources through tsx, which process tests pay at every start.
 */
export function cliCommand(): string[] {
  ensureBuilt();
  return [join(root, 'dist', 'src', 'main.js')];
}

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs `searchdeck serve` as a real process on a free port and waits until it listens. */
export async function startService(
  env: Record<string, string>,
  args: string[] = [],
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...cliCommand(), 'serve', '--port', '0', ...args], {
    env: { ...process.env, SEARCHDECK_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // A bound on waiting, not a speed check: a start takes seconds on a loaded machine. A process that never listens is killed, so the test
    // file fails with its output instead of hanging on a live child.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /searchdeck listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    exited.then(() => reject(new Error(`service exited:\n${output}`)));
  });
  return {
    url,
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (`searchdeck …args`) to its end with the given environment and standard input. */
export function runCli(args: string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  const child = spawn(process.execPath, [...cliCommand(), ...args], {
    env: { ...process.env, SEARCHDECK_LOG_LEVEL: 'info', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin!.end(input);
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
}

let built = false;

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds `dist/` (what `npm start` runs) when it is missing or older than a source file;
 * `npm install` builds it too, so in CI this is already done.
 */
export function ensureBuilt(): void {
  if (built) return;
  const main = join(root, 'dist', 'src', 'main.js');
  built = existsSync(main) && statSync(main).mtimeMs >= newestSource(join(root, 'src'));
  if (built) return;
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  built = true;
}

/** `npm start` with the given arguments, as a user would run it, from the project's root. */
export function npmStart(env: Record<string, string>, args: string[] = []): ChildProcess {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return spawn(npm, ['start', '--', ...args], {
    cwd: root,
    env: { ...process.env, SEARCHDECK_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
