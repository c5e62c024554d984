import { describe, expect, it } from 'vitest';
import { commandFiles, commands, runTasjeel } from './commands';

async function tasjeel(file: string, argv: string[]) {
  let out = '';
  let err = '';
  const code = await runTasjeel(
    file,
    argv,
    {},
    { out: (text) => (out += text), err: (text) => (err += text) },
  );
  return { code, out, err };
}

describe('npm run tasjeel', () => {
  it('lists every command with --help, and refuses none or an unknown one with the list', async () => {
    const help = await tasjeel('tasjeel', ['--help']);
    expect(help.code).toBe(0);
    for (const command of commands) expect(help.out).toContain(`${command.name} `);
    for (const argv of [[], ['erase'], ['\u202Eexport']]) {
      const refused = await tasjeel('tasjeel', argv);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain(help.out);
      expect(refused.err).not.toContain('\u202E');
    }
  });

  it('runs the command its first argument names, or the one a built file is named for', async () => {
    const byName = await tasjeel('tasjeel', ['webhooks', '--help']);
    expect(byName).toEqual({
      code: 0,
      out: expect.stringMatching(/^usage: npm run webhooks -- /),
      err: '',
    });
    expect([...commandFiles.keys()]).toEqual([
      'export',
      'report',
      'lead',
      'person',
      'people',
      'webhooks-cli',
      'summaries',
    ]);
    for (const [file, command] of commandFiles) {
      expect(await tasjeel(file, ['--help'])).toEqual({
        code: 0,
        out: `${command.usage}\n`,
        err: '',
      });
      expect((await tasjeel(file, ['--no-such-option'])).code).toBe(2);
    }
  });
});
