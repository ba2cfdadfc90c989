/** Canvas gestures and code edits as model ops (pure). */
export * from './edits.ts';
export { diffToOps } from './diff.ts';
export { opsForEdit, type CanvasEdit } from './gestures.ts';
export { retargetOps } from './retarget.ts';
export { describeDiff, type ChartChange, type DiffOptions } from './describe-diff.ts';
export { versionDiff, type DiffKind, type VersionDiff } from './version-diff.ts';
