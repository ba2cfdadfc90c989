import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const EFFECT = /^use(Layout)?Effect$/;
const SENDER = /^send$|Send$/;
const SENDS = 'No effect sends an actor an event: the parent machine routes what changed (machines/CONTEXT.md).';

/** Every node under `node`, itself first; `skip(child, parent)` leaves a subtree out. */
function* nodesUnder(node, keys, skip = () => false) {
  yield node;
  for (const key of keys[node.type] ?? []) {
    const child = node[key];
    for (const c of Array.isArray(child) ? child : [child])
      if (c && typeof c.type === 'string' && !skip(c, node)) yield* nodesUnder(c, keys, skip);
  }
}

/** A function the effect defines but does not return (a listener, an observer's callback): it runs on its own event. */
const isCallback = (node, parent) =>
  parent.type !== 'ReturnStatement' &&
  (node.type === 'ArrowFunctionExpression' ||
    node.type === 'FunctionExpression' ||
    node.type === 'FunctionDeclaration');

/** A call of a sender: `x.send(...)`, `send(...)` or `fooSend(...)`. */
const isSend = (node) =>
  node.type === 'CallExpression' &&
  ((node.callee.type === 'Identifier' && SENDER.test(node.callee.name)) ||
    (node.callee.type === 'MemberExpression' &&
      node.callee.property.type === 'Identifier' &&
      SENDER.test(node.callee.property.name)));

/** The function a name of this file holds: `function f() {}`, `const f = () => ...`, `const f = useCallback(() => ..., [])`. */
function functionOf(scope, name) {
  for (let s = scope; s; s = s.upper) {
    const variable = s.set.get(name);
    if (!variable) continue;
    const def = variable.defs[0];
    if (def?.type === 'FunctionName') return def.node;
    if (def?.type !== 'Variable') return null;
    let init = def.node.init;
    if (init?.type === 'CallExpression' && init.callee.type === 'Identifier' && init.callee.name === 'useCallback')
      init = init.arguments[0];
    return init?.type === 'ArrowFunctionExpression' || init?.type === 'FunctionExpression' ? init : null;
  }
  return null;
}

/**
 * The seam rule's other half: an effect (or its cleanup) that calls a function of the same
 * file which sends (a `useCallback` around `canvasSend`, as the stage's fit once was) sends
 * all the same. One call deep: the function itself must send. A listener or observer the
 * effect sets up (a function it defines but does not return) delivers its own facts and is
 * left alone.
 */
const effectSendsThrough = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const keys = context.sourceCode.visitorKeys;
    return {
      CallExpression(effect) {
        if (effect.callee.type !== 'Identifier' || !EFFECT.test(effect.callee.name) || !effect.arguments[0]) return;
        const run = effect.arguments[0];
        const body = run.type === 'ArrowFunctionExpression' || run.type === 'FunctionExpression' ? run.body : run;
        for (const node of nodesUnder(body, keys, isCallback)) {
          if (node.type !== 'CallExpression' || node.callee.type !== 'Identifier' || isSend(node)) continue;
          const fn = functionOf(context.sourceCode.getScope(node), node.callee.name);
          if (fn && [...nodesUnder(fn.body, keys)].some(isSend))
            context.report({ node, message: `${SENDS} \`${node.callee.name}\` sends.` });
        }
      },
    };
  },
};

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
    plugins: { seam: { rules: { 'effect-sends-through': effectSendsThrough } } },
    rules: {
      'seam/effect-sends-through': 'error',
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
          message: SENDS,
        },
        {
          selector: 'CallExpression[callee.name=/^use(Layout)?Effect$/] CallExpression[callee.name=/^send$|Send$/]',
          message: SENDS,
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
