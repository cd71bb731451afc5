/**
 * util/lazy-module.ts: a dependency loaded on first use is loaded once, and one that cannot be
 * loaded fails with an error naming it and what it is needed for (not a bare MODULE_NOT_FOUND).
 */
import { describe, expect, it } from 'vitest';
import { lazyModule } from '../../src/util/lazy-module.js';

describe('lazyModule', () => {
  it('requires the package on the first call and returns the same exports after', () => {
    const crc = lazyModule<typeof import('@node-rs/crc32')>('@node-rs/crc32', 'a test');
    const first = crc();
    expect(first.crc32c(Buffer.from('123456789'))).toBe(0xe3069283); // CRC-32C check value
    expect(crc()).toBe(first);
  });

  it('a package that cannot be loaded: an Error naming it and its use, with the cause', () => {
    const missing = lazyModule('kmc-no-such-package', 'the test of a missing dependency');
    let thrown: unknown;
    try {
      missing();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/^cannot load kmc-no-such-package, needed for the test of a missing dependency: Cannot find module 'kmc-no-such-package'/);
    expect(((thrown as Error).cause as NodeJS.ErrnoException).code).toBe('MODULE_NOT_FOUND');
    expect(() => missing()).toThrow(/cannot load kmc-no-such-package/);
  });
});
