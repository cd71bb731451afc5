/**
 * What the built package must do before it serves so that every message codec can be loaded at
 * its first use. The bundle (scripts/bundle.mjs) ships each API's request and response codecs
 * (src/protocol/messages/*) as their own file, loaded synchronously with `require` the first time
 * a request of that API arrives or a handler touches them, so a start parses only the codecs it
 * uses (issue #16). The package's bundle is CommonJS (scripts/code-cache.mjs), and so are its codec
 * files: `require` loads them on any Node. Only an ES module bundle's codec files would need Node
 * 20.19+ (22.12+) for that; there the bundle would register here a step that imports them all
 * ahead, which `startServer` awaits. Unbundled
 * (tsc's output, the tests) the codecs are plain static imports and nothing is registered.
 */
let preload: (() => Promise<void>) | undefined;

/** Registered by the bundle's codec loader: loads every codec file ahead (Node without require(esm)). */
export function setCodecPreload(step: () => Promise<void>): void {
  preload = step;
}

/** Resolves once every codec can be loaded synchronously: at once, unless a preload step is registered. */
export async function codecsLoadable(): Promise<void> {
  if (preload !== undefined) await preload();
}
