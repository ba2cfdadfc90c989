import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist',
      'node_modules',
      'tests/.tmp',
      'bench/.tmp',
      'bench/.probe*',
      '.chartroom',
      'supabase/functions',
      'tests/fixtures/functions',
    ],
  },
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
  // The layers, as lint errors: lib <- machines <- app -> features, and adapters only from
  // app. Each layer lists what it may not import; src/app (the composition root) may import all.
  {
    files: ['src/lib/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@supabase/*'], message: 'Only src/adapters/ talks to Supabase.' },
            { group: ['react', 'react-dom', '@xstate/react'], message: 'src/lib is pure: no React.' },
            {
              group: ['**/machines/**'],
              message: 'src/lib is the bottom layer: machines import it, not the other way.',
            },
            {
              group: ['**/app/**', '**/features/**', '**/adapters/**'],
              message: 'src/lib is the bottom layer: it imports no app, features or adapters.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@supabase/*'], message: 'Machines talk to ports, never the client.' },
            { group: ['react', 'react-dom', '@xstate/react'], message: 'Machines never import React.' },
            {
              group: ['**/src/app/**', '**/src/features/**', '**/src/adapters/**'],
              message: 'Machines import src/lib only; src/app provides their actors.',
            },
          ],
        },
      ],
    },
  },
  // Views create no actor and push no state: the root actors (session, connection, projects,
  // profile, join, room, inspection) are created by their providers in src/app (App.tsx,
  // InspectionSlot.tsx) and everything else is invoked by its parent machine, which hands
  // children what they need. `XContext.useActorRef()` only reads a provider's actor and stays
  // allowed; an effect that sends an actor an event (a bridge carrying state out of the tree
  // and back in) is refused: the parent machine routes it instead.
  {
    files: ['src/features/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='useActorRef']",
          message: 'Views create no actors: a parent machine invokes it (machines/CONTEXT.md, the actor tree).',
        },
        {
          selector: "CallExpression[callee.name='useMachine']",
          message: 'Views create no actors: a parent machine invokes it (machines/CONTEXT.md, the actor tree).',
        },
        // `actor.send(...)`, a sender named `send`, or any sender whose name ends in `Send`
        // (`roomSend`, `canvasSend`, `paneShapeSend`, the hooks in the *-context.ts files).
        {
          selector:
            'CallExpression[callee.name=/^use(Layout)?Effect$/] CallExpression[callee.property.name=/^send$|Send$/]',
          message: 'No effect sends an actor an event: the parent machine routes what changed (machines/CONTEXT.md).',
        },
        {
          selector: 'CallExpression[callee.name=/^use(Layout)?Effect$/] CallExpression[callee.name=/^send$|Send$/]',
          message: 'No effect sends an actor an event: the parent machine routes what changed (machines/CONTEXT.md).',
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@xstate/react',
              importNames: ['useActorRef', 'useMachine'],
              message: 'Views create no actors: a parent machine invokes it, or a provider in src/app.',
            },
          ],
          patterns: [
            { group: ['@supabase/*'], message: 'Only src/adapters/ talks to Supabase.' },
            {
              group: ['**/app/**'],
              message: 'Features never import the composition root: src/app provides what they read.',
            },
            {
              group: ['**/adapters/**'],
              message: 'Adapters are wired in src/app only; features read machines through hooks.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/machines/**', '**/app/**', '**/features/**'],
              message: 'Adapters implement ports (src/lib/ports); src/app wires them to machines.',
            },
          ],
        },
      ],
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
  // The command's launcher is plain JavaScript (it registers tsx, then loads the TypeScript).
  { files: ['src/cli/bin.mjs'], ...tseslint.configs.disableTypeChecked },
);
