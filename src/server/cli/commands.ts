import { visible, type Command, type Env, type Terminal } from './command';
import { exportCommand } from './export';
import { leadCommand } from './lead';
import { peopleCommand } from './people';
import { personCommand } from './person';
import { reportCommand } from './report';
import { summariesCommand } from './summaries';
import { webhooksCommand } from './webhooks';

/**
 * Every command, by the name of the built file that runs it alone (scripts/build-server.ts): as
 * operators already run them in the container, which has no npm (docs/deploying.md).
 */
export const commandFiles = new Map<string, Command>([
  ['export', exportCommand],
  ['report', reportCommand],
  ['lead', leadCommand],
  ['person', personCommand],
  ['people', peopleCommand],
  ['webhooks-cli', webhooksCommand],
  ['summaries', summariesCommand],
]);
export const commands = [...commandFiles.values()];

const list = [
  'usage: npm run tasjeel -- COMMAND [ARGUMENTS], or npm run COMMAND -- [ARGUMENTS]',
  '',
  ...commands.map((command) => `${command.name.padEnd(10)}${command.summary}`),
  '',
  'npm run COMMAND -- --help shows its arguments (docs/commands.md).',
].join('\n');

/**
 * `npm run tasjeel`: runs the command its first argument names (`file`, the name node was given,
 * names it instead when it is one of commandFiles); returns the exit code.
 */
export async function runTasjeel(file: string, argv: string[], env: Env, terminal: Terminal) {
  const alone = commandFiles.get(file);
  if (alone !== undefined) return alone.run(argv, env, terminal);
  const [name, ...rest] = argv;
  const command = commands.find((known) => known.name === name);
  if (command !== undefined) return command.run(rest, env, terminal);
  if (name === '--help' || name === '-h') {
    terminal.out(`${list}\n`);
    return 0;
  }
  terminal.err(
    `${name === undefined ? 'expected a command' : `unknown command ${visible(name)}`}\n${list}\n`,
  );
  return 2;
}
