import react from '@vitejs/plugin-react';
import { configDefaults, defineConfig } from 'vitest/config';

const builtServerTests = 'src/server/security-http.test.ts';

export default defineConfig({
  plugins: [react()],
  test: {
    globalSetup: ['testing/global-setup.ts'],
    // A test waits for an event (a delivery, a log line) with expect.poll, never a sleep. On a
    // busy machine the event comes late, not wrongly: the wait lasts as long as a test may.
    expect: { poll: { timeout: 5_000 } },
    projects: [
      { extends: true, test: { name: 'domain', include: ['src/domain/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'web',
          include: ['src/web/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['src/web/test-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'server',
          include: ['src/server/**/*.test.ts'],
          exclude: [...configDefaults.exclude, builtServerTests],
        },
      },
      // The built server, over HTTP: after the browser tests, whose build it uses (npm test).
      { extends: true, test: { name: 'built', include: [builtServerTests] } },
      { extends: true, test: { name: 'scripts', include: ['scripts/**/*.test.ts'] } },
    ],
  },
});
