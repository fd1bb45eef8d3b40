// The data directory: made when missing, and proven writable before anything is put in it.
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Why a directory cannot hold the service's files, in words an operator can act on. */
export class DirectoryError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path} ${problem}`);
    this.name = 'DirectoryError';
  }
}

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'unknown error';

/**
 * Makes `dir` (and its missing parents, mode 0700) and checks that a file can be written in
 * it; throws a DirectoryError otherwise. Node's `mkdirSync(dir, { recursive: true })` is not
 * used: a file system that answers ENOENT for a child of an existing directory (procfs:
 * `/proc/nope`) sends its parent-first retry into an endless loop, so it would spin instead
 * of failing. Here each level is made once, so every path ends in an answer.
 */
export function prepareDirectory(dir: string): void {
  const path = resolve(dir);
  const missing: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    const kind = entryKind(at, path);
    if (kind === 'directory') break;
    if (kind === 'other') {
      throw new DirectoryError(
        path,
        at === path ? 'is not a directory' : `cannot be created: ${at} is not a directory`,
      );
    }
    if (dirname(at) === at) throw new DirectoryError(path, 'cannot be created: no such file system');
    missing.unshift(at);
  }
  for (const level of missing) {
    try {
      mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      // Another process may have made it meanwhile; anything else is final.
      if (errorCode(error) !== 'EEXIST' || entryKind(level, path) !== 'directory') {
        throw new DirectoryError(path, `cannot be created (${errorCode(error)} at ${level})`);
      }
    }
  }
  const probe = join(path, `.write-check-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (error) {
    throw new DirectoryError(path, `is not writable (${errorCode(error)})`);
  }
}

function entryKind(at: string, path: string): 'directory' | 'other' | 'missing' {
  try {
    return statSync(at).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    const code = errorCode(error);
    // ENOTDIR: a file stands somewhere above; climbing on finds it and names it.
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw new DirectoryError(path, `cannot be read (${code} at ${at})`);
  }
}
