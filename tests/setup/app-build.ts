/** Where a run's one build of the app lives: beside the run's backend data dir, removed with it. */
export function appBuildDir(dataDir: string): string {
  return `${dataDir}-app`;
}
