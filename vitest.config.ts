import react from '@vitejs/plugin-react';
import { configDefaults, defineConfig } from 'vitest/config';
import { eventWaitMs } from './testing/event-wait';

const builtServerTests = 'src/server/security-http.test.ts';

export default defineConfig({
  plugins: [react()],
  test: {
    globalSetup: ['testing/global-setup.ts'],
    expect: { poll: { timeout: eventWaitMs } },
    // A test may wait for a few events, each up to eventWaitMs on a busy machine.
    testTimeout: 4 * eventWaitMs,
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
      // The e-mails, rendered as the server renders them (no DOM).
      { extends: true, test: { name: 'mail', include: ['src/mail/**/*.test.{ts,tsx}'] } },
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
