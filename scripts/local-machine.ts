import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

/** Debian's chromium (or CHROME_PATH): nothing here may download a browser of its own. */
export const chromiumPath = process.env.CHROME_PATH ?? '/usr/bin/chromium';

/** The other engines of the browser tests (e2e/engines.spec.ts), all from Debian's packages. */
export const firefoxPath = '/usr/bin/firefox-esr';
export const webKitDriverPath = '/usr/bin/WebKitWebDriver';
const multiarch = process.arch === 'arm64' ? 'aarch64-linux-gnu' : 'x86_64-linux-gnu';
export const miniBrowserPath = `/usr/lib/${multiarch}/webkit2gtk-4.1/MiniBrowser`;
export const xvfbPath = '/usr/bin/Xvfb';

/**
 * Started as root on a machine with no network but the package registries: without the
 * background-networking flags chromium keeps trying hosts it cannot reach.
 */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Fails with the one line that says how to get chromium. */
export function requireChromium(): string {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `No chromium at ${chromiumPath}: install it with 'apt-get install chromium' or set CHROME_PATH.`,
    );
  }
  return chromiumPath;
}

/** A port nothing listens on right now, on the loopback address. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}
