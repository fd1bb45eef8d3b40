import { Writable } from 'node:stream';

export interface CapturedLog {
  /** Fastify logger options writing every line from `level` up (every line by default) into `lines`. */
  logger: { level: 'trace' | 'debug' | 'info'; stream: Writable };
  lines: string[];
}

/** A logger for `build(t, engine, { logger })` whose lines the test can read afterwards. */
export function captureLog(level: CapturedLog['logger']['level'] = 'trace'): CapturedLog {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: { level, stream }, lines };
}
