// A minimal Redis client (RESP2 over one TCP connection, replies in the order of the
// commands), enough for the typeahead peer: ZADD, DEL and ZRANGEBYLEX. It keeps the bench
// free of a client package in the shared dependencies; a pipelined connection is what the
// common clients (redis, ioredis) use as well.
import { connect, type Socket } from 'node:net';

export type Reply = string | number | null | Reply[];

const CRLF = Buffer.from('\r\n');

/** One connection to Redis; commands may be sent without waiting for earlier replies. */
export class RespClient {
  readonly #pending: Array<{ resolve: (reply: Reply) => void; reject: (error: Error) => void }> = [];
  #buffer: Buffer = Buffer.alloc(0);

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', (error) => {
      for (const waiter of this.#pending.splice(0)) waiter.reject(error);
    });
  }

  /** Connects, or rejects within `timeoutMs` when nothing answers. */
  static open(host: string, port: number, timeoutMs = 2000): Promise<RespClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer from Redis at ${host}:${port}`));
      }, timeoutMs);
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new RespClient(socket));
      });
    });
  }

  /** Sends one command (bulk strings) and answers its reply; an error reply rejects. */
  command(args: ReadonlyArray<string | Buffer>): Promise<Reply> {
    const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
    for (const arg of args) {
      const bytes = typeof arg === 'string' ? Buffer.from(arg) : arg;
      parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, CRLF);
    }
    return new Promise((resolve, reject) => {
      this.#pending.push({ resolve, reject });
      this.socket.write(Buffer.concat(parts));
    });
  }

  close(): void {
    this.socket.end();
  }

  #receive(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const parsed = parseReply(this.#buffer, 0);
      if (parsed === undefined) return;
      this.#buffer = this.#buffer.subarray(parsed.end);
      const waiter = this.#pending.shift();
      if (parsed.error) waiter?.reject(new Error(parsed.error));
      else waiter?.resolve(parsed.value);
    }
  }
}

interface Parsed {
  value: Reply;
  error?: string;
  end: number;
}

/** The reply starting at `at`, or undefined while it has not fully arrived. */
function parseReply(buffer: Buffer, at: number): Parsed | undefined {
  const lineEnd = buffer.indexOf(CRLF, at);
  if (lineEnd < 0) return undefined;
  const line = buffer.toString('utf8', at + 1, lineEnd);
  const next = lineEnd + 2;
  switch (buffer[at]) {
    case 0x2b: // +
      return { value: line, end: next };
    case 0x2d: // -
      return { value: null, error: line, end: next };
    case 0x3a: // :
      return { value: Number(line), end: next };
    case 0x24: {
      // $
      const length = Number(line);
      if (length < 0) return { value: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString('utf8', next, next + length), end: next + length + 2 };
    }
    case 0x2a: {
      // *
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: Reply[] = [];
      let end = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, end);
        if (item === undefined) return undefined;
        items.push(item.value);
        end = item.end;
      }
      return { value: items, end };
    }
    default:
      throw new Error(`unexpected Redis reply: ${line}`);
  }
}
