import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root directory, where package.json is: two levels up from src/ (run through
 * tsx), three from dist/src/ (built). Files shipped beside the code (the console's build, the
 * Solr configset) are found from it.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('cannot find the package root: no package.json above the code');
}
