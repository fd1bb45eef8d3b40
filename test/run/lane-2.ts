import { runLane } from '../helpers/lane-runner.js';

await runLane();
