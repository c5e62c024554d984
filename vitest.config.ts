import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  test: {
    globalSetup: ['testing/global-setup.ts'],
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
      { extends: true, test: { name: 'server', include: ['src/server/**/*.test.ts'] } },
      { extends: true, test: { name: 'scripts', include: ['scripts/**/*.test.ts'] } },
    ],
  },
});
