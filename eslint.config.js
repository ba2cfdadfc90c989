import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'tests/.tmp', 'bench/.tmp', 'bench/.probe*', '.chartroom', 'supabase/functions', 'tests/fixtures/functions'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.browser, ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'machines/**/*.ts'],
    ignores: ['src/adapters/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@supabase/*'], message: 'Only src/adapters/ talks to Supabase.' }] }],
    },
  },
  {
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['@supabase/*'], message: 'Machines talk to ports, never the client.' },
        { group: ['react', 'react-dom', '@xstate/react'], message: 'Machines never import React.' },
      ] }],
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
);
