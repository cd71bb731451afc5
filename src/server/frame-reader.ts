/**
 * Splits a TCP byte stream into Kafka's size-prefixed frames (int32 big-endian size, not
 * counting itself). A size below 0 or above `maxFrameBytes` (`socket.request.max.bytes`)
 * is an error, as Kafka's `NetworkReceive` raises InvalidReceiveException for it.
 */
export class FrameTooLargeError extends Error {}

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxFrameBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /** The size of the next frame once its prefix has been read (throws FrameTooLargeError), else null. */
  nextSize(): number | null {
    if (this.buffered < 4) return null;
    const size = this.peek(4).readInt32BE(0);
    if (size < 0 || size > this.maxFrameBytes) {
      throw new FrameTooLargeError(`frame size ${size} is outside 0..${this.maxFrameBytes} (socket.request.max.bytes)`);
    }
    return size;
  }

  /** The next complete frame (without its size prefix), or null if more bytes are needed. */
  next(): Buffer | null {
    const size = this.nextSize();
    if (size === null || this.buffered < 4 + size) return null;
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    const frame = all.subarray(4, 4 + size);
    const rest = all.subarray(4 + size);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return frame;
  }

  private peek(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= n) return first;
    const all = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all;
  }
}
