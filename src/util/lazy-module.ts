/**
 * Dependencies loaded on first use instead of at start (issue #16: start-up time and idle RSS).
 * The native bindings `@node-rs/crc32` and `@node-rs/xxhash` cost about 17 ms of CPU and 8 MiB of
 * RSS each to load, `re2js` is 260 kB of JavaScript to compile, `node:tls` about 2 MiB of RSS; a
 * broker that has not yet seen a record batch, a KIP-848 group or a regular expression, or that
 * has no SSL listener, needs none of them. They are CommonJS packages or Node's own modules, so
 * `require` loads them synchronously and their callers stay synchronous.
 */
import { createRequire } from 'node:module';

const requireFromHere = createRequire(import.meta.url);

/**
 * A getter of the package `name`, required on its first call and kept. A package that cannot be
 * loaded (not installed, no binary for this platform) throws an Error naming it and `usedFor`,
 * at each call until it loads.
 */
export function lazyModule<T>(name: string, usedFor: string): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      try {
        loaded = requireFromHere(name) as T;
      } catch (err) {
        throw new Error(`cannot load ${name}, needed for ${usedFor}: ${(err as Error).message}`, { cause: err });
      }
    }
    return loaded;
  };
}
