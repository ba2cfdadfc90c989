/** A file as a developer writes it: setup() implementations, comments, an inline assign, code around. */
export const TOGGLE = `import { assign, setup } from 'xstate';
import { notify } from './notify';

// The toggle: flips between on and off.
export const toggleMachine = setup({
  actions: { notify: () => notify('x') },
  guards: { isReady: ({ context }) => context.count > 0 },
}).createMachine({
  id: 'toggle',
  context: { count: 0 },
  initial: 'off',
  states: {
    off: {
      // go on
      on: { TOGGLE: { target: 'on', actions: assign({ count: ({ context }) => context.count + 1 }) } },
    },
    on: {
      entry: ['notify'],
      on: {
        TOGGLE: 'off', // back
        /* only when ready */
        RESET: { target: 'off', guard: 'isReady' },
      },
    },
  },
});

export function helper() {
  return 42; // untouched
}
`;
