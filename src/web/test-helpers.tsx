import { render } from '@testing-library/react';
import { App } from './app';

/** For tests: the whole app at a path, /register prefix included, as a browser would show it. */
export function renderApp(path: string) {
  return render(<App location={path} />);
}
