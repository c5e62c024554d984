import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  chromiumPath,
  firefoxPath,
  miniBrowserPath,
  webKitDriverPath,
  xvfbPath,
} from './local-machine';

// The first step of `npm test`: a fresh machine gets the browser tests' engines from Debian
// before the minutes of unit tests rather than a failure after them. Only root can install
// them; anyone else is told the one command, at once.
const packages = [
  { path: chromiumPath, name: 'chromium' },
  { path: firefoxPath, name: 'firefox-esr' },
  { path: webKitDriverPath, name: 'webkit2gtk-driver' },
  // MiniBrowser comes with the engine's library, which the driver depends on.
  { path: miniBrowserPath, name: 'webkit2gtk-driver' },
  { path: xvfbPath, name: 'xvfb' },
];

function hasAptGet(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const missing = packages.filter(({ path }) => !existsSync(path));
if (missing.length > 0) {
  const names = [...new Set(missing.map(({ name }) => name))].join(' ');
  const install = `apt-get update && apt-get install -y ${names}`;
  const paths = missing.map(({ path }) => path).join(', ');
  // A CHROME_PATH that is missing is a typo to fix, not something apt-get provides.
  const chromiumMissing = missing.some(({ path }) => path === chromiumPath);
  if (
    (chromiumMissing && process.env.CHROME_PATH !== undefined) ||
    process.getuid?.() !== 0 ||
    !hasAptGet()
  ) {
    console.error(
      `No ${paths}: run 'sudo sh -c "${install}"'${chromiumMissing ? ' or set CHROME_PATH' : ''}.`,
    );
    process.exit(1);
  }
  console.log(`No ${paths}: running '${install}'`);
  execFileSync('sh', ['-c', install], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}
