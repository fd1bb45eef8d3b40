// How `searchdeck admin set-password` reads the new password: hidden and asked twice on a
// terminal, one line from standard input otherwise (scripts pipe it in).
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/** The user gave up (Ctrl-C, or the input ended) before a password was read. */
export class PromptCancelled extends Error {}

/** The two passwords typed on a terminal were not the same. */
export class PasswordsDiffer extends Error {}

/** Reads the new admin password: twice without echo on a terminal (they must match), else the first line. */
export async function readNewPassword(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stdout,
): Promise<string> {
  if (!input.isTTY) return firstLine(input);
  const [password, again] = await askHidden(input, output, ['New admin password: ', 'Repeat it: ']);
  if (password !== again) throw new PasswordsDiffer('the two passwords differ; nothing was changed');
  return password!;
}

async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) return line.trim();
  return '';
}

/**
 * Asks each question and reads one line for it with the terminal's echo off: readline in
 * terminal mode puts the terminal in raw mode and echoes through its output, which here
 * writes nowhere.
 */
function askHidden(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  questions: string[],
): Promise<string[]> {
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const lines = createInterface({ input, output: silent, terminal: true });
  const answers: string[] = [];
  return new Promise<string[]>((resolve, reject) => {
    lines.on('line', (line) => {
      output.write('\n');
      answers.push(line.trim());
      if (answers.length < questions.length) output.write(questions[answers.length]!);
      else lines.close();
    });
    // Raw mode turns Ctrl-C into this event instead of the signal.
    lines.on('SIGINT', () => {
      output.write('\n');
      lines.close();
    });
    lines.on('close', () =>
      answers.length === questions.length ? resolve(answers) : reject(new PromptCancelled('cancelled')),
    );
    output.write(questions[0]!);
  });
}
