import { basename } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { runTasjeel } from './commands';

// The one entry of the command lines: built as dist/server/tasjeel.js, and as export.js,
// report.js… (commandFiles), where the file's name is the command.

async function askOnTerminal(question: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await terminal.question(question)).trim());
  } finally {
    terminal.close();
  }
}

process.exitCode = await runTasjeel(
  basename(process.argv[1] ?? '', '.js'),
  process.argv.slice(2),
  process.env,
  {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    confirm: process.stdin.isTTY ? askOnTerminal : undefined,
  },
);
