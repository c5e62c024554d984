import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { eventWaitMs } from '../../testing/event-wait';

configure({ asyncUtilTimeout: eventWaitMs });

// jsdom lays nothing out, so it has no ResizeObserver: one that never reports (every box is 0 wide).
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});
