/** The examples' names, apart from the examples themselves, so menus don't load them. */
export const EXAMPLE_NAMES = [
  'session',
  'connection',
  'room',
  'document',
  'projects',
  'invites',
  'canvas',
  'layout',
] as const;
export type ExampleName = (typeof EXAMPLE_NAMES)[number];
