import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import reactRefresh from 'eslint-plugin-react-refresh';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// web and server both build on domain; they never import each other, and domain imports neither.
// mail (the e-mails' HTML) stands beside the server, which alone imports it; it builds on domain.
// None of them imports the build and docs tooling of scripts/ (tests reach it through testing/).
const boundaries = {
  domain: ['**/web/**', '**/server/**', '**/mail/**', '**/scripts/**'],
  web: ['**/server/**', '**/mail/**', '**/scripts/**'],
  server: ['**/web/**', '**/scripts/**'],
  mail: ['**/web/**', '**/server/**', '**/scripts/**'],
};

export default tseslint.config(
  { ignores: ['dist', 'coverage', 'test-results', 'playwright-report', 'bench/results'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
  },
  ...Object.entries(boundaries).map(([folder, forbidden]) => ({
    files: [`src/${folder}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: forbidden.map((group) => ({
            group: [group],
            message: `${folder} must not import this folder`,
          })),
        },
      ],
    },
  })),
  {
    files: ['src/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks, 'react-refresh': reactRefresh },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-refresh/only-export-components': ['warn', { allowConstantExport: true }],
    },
  },
);
