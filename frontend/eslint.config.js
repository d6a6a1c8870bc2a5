import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Every folder of src/features is a feature: read, not listed, so a new feature is never
// left out of the import rules below.
const FEATURES = readdirSync(new URL('./src/features/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-results', 'src/types/api.gen.ts'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2022, globals: globals.browser },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // bulletproof-react: imports flow shared -> features -> app; no feature imports another.
  ...FEATURES.map((feature) => ({
    files: [`src/features/${feature}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: FEATURES.filter((f) => f !== feature).map((f) => `@/features/${f}/*`), message: 'no imports between features' },
            // the same through a relative path (../../tradeoff/api/...)
            { regex: `^(\\.\\./){2,}(features/)?(${FEATURES.filter((f) => f !== feature).join('|')})(/|$)`, message: 'no imports between features' },
            { group: ['@/app/*'], message: 'features must not import the app layer' },
            { regex: '^(\\.\\./){2,}app(/|$)', message: 'features must not import the app layer' },
          ],
        },
      ],
    },
  })),
  {
    files: ['src/lib/**', 'src/components/**', 'src/api/**', 'src/types/**', 'src/config/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@/features/*', '@/app/*'], message: 'shared code must not import features or the app' },
            { regex: '^(\\.\\./)+(features|app)(/|$)', message: 'shared code must not import features or the app' },
          ],
        },
      ],
    },
  },
  {
    files: ['e2e/**/*.mjs', '*.config.{js,ts}'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
