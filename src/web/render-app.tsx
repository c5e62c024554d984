import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { App } from './app';
import { basename } from './routes';

/** For tests: the whole app at a path, /register prefix included, as a browser would show it. */
export function renderApp(path: string) {
  return render(
    <MemoryRouter basename={basename} initialEntries={[path]}>
      <App />
    </MemoryRouter>,
  );
}
