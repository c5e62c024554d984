/** The three engines the shared flows run in (e2e/engines.spec.ts), each through its own driver. */
export type EngineName = 'chromium' | 'firefox' | 'webkit';

export interface PageOptions {
  /** The viewport in CSS pixels. */
  width: number;
  height: number;
  javaScript: boolean;
}

/**
 * What the shared flows need of a page, whichever driver runs it: Playwright (Chromium),
 * Puppeteer over WebDriver BiDi (Firefox), Selenium over WebKitWebDriver (WebKit). Input is
 * the drivers' own pointer and keyboard, never a script's events; `evaluate` only reads.
 */
export interface EnginePage {
  /** Loads a path of the app and waits for its load event. */
  goto(path: string): Promise<void>;
  /** Runs a self-contained function in the page, even with the page's JavaScript off. */
  evaluate<Arg, Result>(fn: (arg: Arg) => Result, arg: Arg): Promise<Awaited<Result>>;
  /** A pointer click at a point of the viewport, in CSS pixels. */
  clickAt(x: number, y: number): Promise<void>;
  /** Types text with the keyboard into what has the focus. */
  type(text: string): Promise<void>;
  /** Ctrl+V into what has the focus. */
  paste(): Promise<void>;
  /** Waits for the page's next alert, accepts it and returns its text. */
  nextAlert(): Promise<string>;
  /** A PNG of the viewport. */
  screenshot(): Promise<Buffer>;
  /** Resizes the viewport (CSS pixels), failing unless the page then has that width. */
  resize(width: number, height: number): Promise<void>;
  /**
   * The page's uncaught errors and console errors so far; undefined where the driver cannot
   * read them (WebKitWebDriver returns no console messages).
   */
  errors(): string[] | undefined;
  close(): Promise<void>;
}

export interface Engine {
  name: EngineName;
  open(options: PageOptions): Promise<EnginePage>;
  stop(): Promise<void>;
}

const pollMs = 100;

/** Polls `fn` in the page until it returns something other than null or false. */
export async function waitFor<Arg, Result>(
  page: EnginePage,
  what: string,
  fn: (arg: Arg) => Result | null | false,
  arg: Arg,
  timeoutMs = 15_000,
): Promise<Result> {
  const deadline = Date.now() + timeoutMs;
  let failure: unknown;
  for (;;) {
    try {
      const result = await page.evaluate(fn, arg);
      if (result !== null && result !== false) return result as Result;
    } catch (error) {
      // A page on its way to the next one (a form posted without JavaScript) cannot answer.
      failure = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: failure });
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** A control as a person finds it: a field by its label, a button or link by its text. */
export type Control = { field: string } | { button: string };

/**
 * In the page: the control's centre, scrolled into view, or null while there is none. A
 * field is found through its <label for> or its aria-labelledby, as a screen reader names it.
 */
function locate(control: Control): { x: number; y: number } | null {
  const text = (element: Element) => (element.textContent ?? '').replace('*', '').trim();
  let found: Element | null | undefined;
  if ('field' in control) {
    const label = Array.from(document.querySelectorAll('label, h1')).find(
      (candidate) => text(candidate) === control.field,
    );
    if (label instanceof HTMLLabelElement) found = document.getElementById(label.htmlFor);
    else if (label !== undefined) found = document.querySelector(`[aria-labelledby="${label.id}"]`);
  } else {
    found = Array.from(document.querySelectorAll('button, a')).find(
      (candidate) => text(candidate) === control.button,
    );
  }
  if (!found) return null;
  found.scrollIntoView({ block: 'center', inline: 'center' });
  const box = found.getBoundingClientRect();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Clicks a control once it is on the page. */
export async function click(page: EnginePage, control: Control): Promise<void> {
  const { x, y } = await waitFor(page, JSON.stringify(control), locate, control);
  await page.clickAt(x, y);
}

/** Taps a field and types into it, as a person does. */
export async function typeInto(page: EnginePage, field: string, text: string): Promise<void> {
  await click(page, { field });
  await page.type(text);
}

/** In the page: a field's value, found by its label as `locate` finds it. */
export function fieldValue(field: string): string | null {
  const label = Array.from(document.querySelectorAll('label, h1')).find(
    (candidate) => (candidate.textContent ?? '').replace('*', '').trim() === field,
  );
  const control =
    label instanceof HTMLLabelElement
      ? document.getElementById(label.htmlFor)
      : label === undefined
        ? null
        : document.querySelector(`[aria-labelledby="${label.id}"]`);
  return control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement
    ? control.value
    : null;
}

/** In the page: the text of the live region with this role ('alert' or 'status'). */
export function liveText(role: string): string | null {
  return document.querySelector(`[role="${role}"]`)?.textContent ?? null;
}

/** In the page: whether the app has hydrated the server's HTML (src/web/app.tsx). */
export function hydrated(): boolean {
  return document.documentElement.dataset.appReady === 'true';
}

/** Alerts as a driver reports them (each accepted at once), handed out in order. */
export function alertQueue() {
  const messages: string[] = [];
  return {
    push(message: string) {
      messages.push(message);
    },
    async next(timeoutMs = 15_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      while (messages.length === 0) {
        if (Date.now() > deadline) throw new Error(`no alert within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
      return messages.shift() as string;
    },
  };
}
