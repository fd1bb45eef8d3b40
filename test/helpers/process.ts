import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

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
  const child = spawn(process.execPath, ['--import', 'tsx', main, 'serve', '--port', '0', ...args], {
    env: { ...process.env, SEARCHDECK_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 20_000);
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
