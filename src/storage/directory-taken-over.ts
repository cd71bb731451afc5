/**
 * Whether a server's data directory was taken over by another server while this one was frozen
 * (data-dir-lock.ts `onLost`): from then on its logs close without touching their files (no cut
 * of zeros, no sync), which the other server now writes; a cut there truncated the other's
 * acknowledged batches. Keyed by the server's configuration object, as `syncGateFor`.
 */
const takenOver = new WeakSet<object>();

export function markDirectoryTakenOver(config: object): void {
  takenOver.add(config);
}

/** For the logs of the server configured by `config`: whether its directory was taken over (now). */
export function directoryTakenOverCheck(config: object): () => boolean {
  return () => takenOver.has(config);
}
