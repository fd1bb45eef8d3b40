// Builds dist/ when a source file is newer than it. `npm test` runs this first: the process
// tests run the built CLI, as users do, and the lanes must not both start a build.
import { ensureBuilt } from '../test/helpers/process.js';

ensureBuilt();
