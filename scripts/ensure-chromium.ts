import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromiumPath } from './local-machine';

// The first step of `npm test`: a fresh machine gets Debian's chromium before the minutes of
// unit tests rather than a failure after them. Only root can install it; anyone else is told
// the one command, at once.
const install = 'apt-get update && apt-get install -y chromium';

function hasAptGet(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

if (!existsSync(chromiumPath)) {
  // A CHROME_PATH that is missing is a typo to fix, not something apt-get provides.
  if (process.env.CHROME_PATH !== undefined || process.getuid?.() !== 0 || !hasAptGet()) {
    console.error(
      `No chromium at ${chromiumPath}: run 'sudo sh -c "${install}"' or set CHROME_PATH.`,
    );
    process.exit(1);
  }
  console.log(`No chromium at ${chromiumPath}: running '${install}'`);
  execFileSync('sh', ['-c', install], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}
