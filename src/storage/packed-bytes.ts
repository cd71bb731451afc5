/**
 * The bytes of an in-memory segment (no file): batches copied back to back into chunks the segment
 * owns, read back as views. Why not keep each batch's own Buffer: a small Buffer is a view into an
 * 8 KiB pool slab shared with short-lived buffers (responses, requests), so every batch kept alive a
 * slab full of garbage (about 700 bytes per OffsetCommit of ~150) and a Buffer object besides.
 *
 * Chunks start at MIN_CHUNK_BYTES (or the first batch's size) and double up to MAX_CHUNK_BYTES (a
 * batch larger than a chunk gets a chunk of its size), so a partition holding a batch or two costs
 * a few hundred bytes; what a chunk cannot take goes to the next one, and `trim` gives back the
 * unused end of the last chunk. A first chunk of 4 KiB made a Produce of one small batch to each of
 * 100,000 partitions cost ~400 MiB.
 */

const MIN_CHUNK_BYTES = 256;
const MAX_CHUNK_BYTES = 1024 * 1024;

export class PackedBytes {
  private readonly chunks: Buffer[] = [];
  /** Segment position of each chunk's first byte. */
  private readonly starts: number[] = [];
  /** Bytes used in the last chunk. */
  private used = 0;

  /** Copies `batch`, which lies at segment byte `position` (right after the previous one). */
  append(position: number, batch: Buffer): void {
    let last = this.chunks[this.chunks.length - 1];
    if (last === undefined || this.used + batch.length > last.length) {
      const grown = Math.min(MAX_CHUNK_BYTES, Math.max(MIN_CHUNK_BYTES, 2 * (last?.length ?? 0)));
      last = Buffer.allocUnsafeSlow(Math.max(grown, batch.length));
      this.chunks.push(last);
      this.starts.push(position);
      this.used = 0;
    }
    batch.copy(last, this.used);
    this.used += batch.length;
  }

  /** The `size` bytes at segment byte `position` (one batch), as a view. */
  view(position: number, size: number): Buffer {
    const k = this.chunkAt(position);
    const at = position - this.starts[k]!;
    return this.chunks[k]!.subarray(at, at + size);
  }

  /** Forgets the bytes from segment byte `position` on. */
  truncate(position: number): void {
    if (this.chunks.length === 0) return;
    let k = this.chunkAt(position);
    if (position === this.starts[k]! && k > 0) k--;
    const end = position - this.starts[k]!;
    this.chunks.length = this.starts.length = k + 1;
    this.used = end;
  }

  /** Gives back the unused end of the last chunk (the segment takes no more batches). */
  trim(): void {
    const k = this.chunks.length - 1;
    if (k < 0 || this.chunks[k]!.length === this.used) return;
    const fit = Buffer.allocUnsafeSlow(this.used);
    this.chunks[k]!.copy(fit, 0, 0, this.used);
    this.chunks[k] = fit;
  }

  /** Bytes allocated in chunks. */
  get allocatedBytes(): number {
    let bytes = 0;
    for (const c of this.chunks) bytes += c.length;
    return bytes;
  }

  /** Index of the last chunk starting at or before `position`. */
  private chunkAt(position: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid]! <= position) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
