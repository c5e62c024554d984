import { type ChildProcess, spawn } from 'node:child_process';
import { Builder, Capabilities, Key, Origin, until, type WebDriver } from 'selenium-webdriver';
import { freePort, miniBrowserPath, webKitDriverPath, xvfbPath } from '../scripts/local-machine';
import { type Engine, type EnginePage, type PageOptions, waitFor } from './engine-page';

/**
 * MiniBrowser's window is never narrower than its toolbar (447 px). GTK's text scale, which
 * WebKitGTK applies to the whole page as a zoom, makes the window's 480 px a 320 px page, so
 * every phone width is reachable, laid out in CSS pixels as on a phone.
 */
const zoom = 1.5;

function started(child: ChildProcess, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
    child.once('spawn', resolve);
  });
}

/** Xvfb on a display it picks itself (-displayfd), so that parallel workers never collide. */
async function startXvfb(): Promise<{ process: ChildProcess; display: string }> {
  const xvfb = spawn(
    xvfbPath,
    ['-displayfd', '1', '-screen', '0', '1280x1600x24', '-nolisten', 'tcp'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const display = await new Promise<string>((resolve, reject) => {
    let output = '';
    xvfb.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) resolve(`:${output.trim()}`);
    });
    xvfb.once('error', reject);
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited with ${code}`)));
  });
  return { process: xvfb, display };
}

async function waitForDriver(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/status`)).ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`WebKitWebDriver did not answer at ${url}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * WebKitGTK's MiniBrowser through WebKitWebDriver and Selenium, under Xvfb. The driver is
 * started here and Selenium only talks to it, so Selenium's manager never looks for one to
 * download. A session (a fresh MiniBrowser) for every page: scripts are switched off by
 * MiniBrowser's command line, and each session starts with empty storage.
 */
export async function webKitEngine(baseURL: string): Promise<Engine> {
  const xvfb = await startXvfb();
  const port = await freePort();
  const driver = spawn(webKitDriverPath, [`--port=${port}`], {
    stdio: 'ignore',
    env: { ...process.env, DISPLAY: xvfb.display, GDK_DPI_SCALE: String(zoom) },
  });
  await started(driver, 'WebKitWebDriver');
  const driverUrl = `http://127.0.0.1:${port}`;
  await waitForDriver(driverUrl);

  return {
    name: 'webkit',
    async open({ width, height, javaScript }: PageOptions): Promise<EnginePage> {
      const args = ['--automation', ...(javaScript ? [] : ['--enable-javascript=false'])];
      const session: WebDriver = await new Builder()
        .usingServer(driverUrl)
        .withCapabilities(
          new Capabilities({
            browserName: 'MiniBrowser',
            'webkitgtk:browserOptions': { binary: miniBrowserPath, args },
          }),
        )
        .build();
      const page: EnginePage = {
        async goto(path) {
          await session.get(new URL(path, baseURL).href);
        },
        // __name: what esbuild (tsx) wraps named functions in, should the caller be compiled by it.
        evaluate: (fn, arg) =>
          session.executeScript(
            `const __name = (target) => target; return (${String(fn)})(arguments[0]);`,
            arg,
          ) as never,
        async clickAt(x, y) {
          // The driver counts the window's pixels, not the zoomed page's.
          await session
            .actions()
            .move({ origin: Origin.VIEWPORT, x: Math.round(x * zoom), y: Math.round(y * zoom) })
            .click()
            .perform();
        },
        async type(text) {
          await session.actions().sendKeys(text).perform();
        },
        async paste() {
          await session.actions().keyDown(Key.CONTROL).sendKeys('v').keyUp(Key.CONTROL).perform();
        },
        async nextAlert() {
          const alert = await session.wait(until.alertIsPresent(), 15_000);
          const text = await alert.getText();
          await alert.accept();
          return text;
        },
        screenshot: async () => Buffer.from(await session.takeScreenshot(), 'base64'),
        async resize(newWidth, newHeight) {
          await session
            .manage()
            .window()
            .setRect({ width: Math.round(newWidth * zoom), height: Math.round(newHeight * zoom) });
          // The page learns its new size a moment after the window has it.
          await waitFor(
            page,
            `a page ${newWidth} px wide`,
            (wanted) => innerWidth === wanted,
            newWidth,
          );
        },
        // WebKitWebDriver has no log endpoint: it cannot return console messages.
        errors: () => undefined,
        close: () => session.quit(),
      };
      await page.resize(width, height);
      return page;
    },
    async stop() {
      driver.kill();
      xvfb.process.kill();
    },
  };
}
