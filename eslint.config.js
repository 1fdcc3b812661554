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
    // The bins are plain JavaScript run by Node: its globals are theirs.
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
    files: ['src/domain/**'],
    rules: {
      'no-restricted-globals': ['error', { name: 'Date', message: 'Time comes from the Clock port.' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Randomness comes from a port.' }],
    },
  },
);
