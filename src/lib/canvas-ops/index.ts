/** Canvas gestures and code edits as model ops (pure). */
export * from './edits.ts';
export { diffToOps } from './diff.ts';
export { opsForEdit, type CanvasEdit } from './gestures.ts';
export { retargetOps } from './retarget.ts';
