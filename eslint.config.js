import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'coverage', 'dist', 'contracts/artifacts', '.dependency-cruiser.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Only src/bootstrap/config/ reads the environment.' },
      ],
    },
  },
  {
    // Short (issue 53): no source file over 400 lines, no function over 80 — a longer one is cut into
    // named steps. Migrations are a schema's history, written once (exempt below).
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    // A migration is the database's history as it was shipped: never rewritten to be shorter.
    files: ['src/adapters/persistence/**/migrations/**'],
    rules: { 'max-lines': 'off', 'max-lines-per-function': 'off' },
  },
  {
    // The bins and test fixtures in plain JavaScript run on Node: its globals are theirs.
    files: ['bin/**/*.js', 'test/fixtures/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setInterval: 'readonly' } },
  },
  {
    files: ['src/bootstrap/config/**', 'test/**', 'bench/**', 'scripts/**', 'examples/**', 'vitest.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // Tests and scripts read JSON bodies whose shape they assert or print.
    files: ['test/**', 'scripts/**', 'examples/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The page runs in a browser: its type check sees Node's types (for the app files its types come
    // from), so eslint keeps Node's globals and modules out of its own code.
    files: ['src/adapters/web/browser/**'],
    rules: {
      'no-restricted-globals': ['error', ...['Buffer', 'process', 'global', 'require', '__dirname', '__filename', 'setImmediate', 'clearImmediate'].map((name) => ({ name, message: 'The page runs in a browser.' }))],
      'no-restricted-imports': ['error', { patterns: [{ regex: '^node:', message: 'The page runs in a browser.' }] }],
    },
  },
  {
    files: ['src/domain/**'],
    rules: {
      'no-restricted-globals': ['error', { name: 'Date', message: 'Time comes from the Clock port.' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Randomness comes from a port.' }],
    },
  },
);
