/**
 * Buffers joined into one without a copy when they lie end to end in one memory block (a log read
 * hands out its batches as consecutive views of the one buffer it read into: Fetch answers them as
 * one records field), else with one.
 */
const EMPTY = Buffer.alloc(0);

/** `parts` as one buffer: a view spanning them when each starts where the previous ends in the same ArrayBuffer, else `Buffer.concat`. */
export function joinBuffers(parts: readonly Buffer[]): Buffer {
  if (parts.length === 0) return EMPTY;
  const first = parts[0]!;
  if (parts.length === 1) return first;
  let end = first.byteOffset + first.length;
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.buffer !== first.buffer || p.byteOffset !== end) return Buffer.concat(parts);
    end += p.length;
  }
  return Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset);
}
