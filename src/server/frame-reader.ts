/**
 * Splits a TCP byte stream into Kafka's size-prefixed frames (int32 big-endian size, not
 * counting itself). A size below 0 or above `maxFrameBytes` (`socket.request.max.bytes`)
 * is an error, as Kafka's `NetworkReceive` raises InvalidReceiveException for it.
 */
export class FrameTooLargeError extends Error {}

/**
 * Frames at least this big (bytes) are read into one buffer of their size as their bytes arrive,
 * instead of being kept as the socket's read chunks and joined at the end: the chunks go back to
 * the allocator at once, the peak is the frame's size (not twice it), and the frame's own buffer,
 * allocated apart (`allocUnsafeSlow`), is returned to the system when freed (glibc keeps freed
 * small chunks in its heap: ten 100 MiB frames otherwise left the RSS at 1 GiB once answered).
 */
export const FILL_IN_PLACE_BYTES = 1024 * 1024;

/**
 * Socket reads held at the most (a few more while they are copied): past this count the next frame's
 * bytes go into one buffer of its declared size, as Kafka's `NetworkReceive` allocates the frame's
 * buffer once it has read the size, or (a frame of `FILL_IN_PLACE_BYTES` or more, whose buffer waits
 * for its turn and `queued.max.request.bytes`) are joined into one. Each read is a Buffer of its
 * own: a frame sent a byte per write otherwise cost 50-80 times its size (adversarial trial 14: ten
 * connections dribbling 3.3 MB took the RSS from 52 to 204 MiB). A frame arriving in fewer reads
 * is never copied for this.
 */
export const MAX_HELD_CHUNKS = 64;

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** A frame of `FILL_IN_PLACE_BYTES` or more whose bytes are arriving (its prefix consumed). */
  private filling: { frame: Buffer; filled: number } | null = null;

  constructor(
    private maxFrameBytes: number,
    private limitName = 'socket.request.max.bytes',
  ) {}

  /**
   * Sets the largest frame taken from now on and the config named when one is over it (a SASL
   * connection reads at most `sasl.server.max.receive.size` until authenticated, as Kafka's
   * `SaslServerAuthenticator` reads with a NetworkReceive of that size).
   */
  limit(maxFrameBytes: number, limitName: string): void {
    this.maxFrameBytes = maxFrameBytes;
    this.limitName = limitName;
  }

  /** Bytes held for frames not yet taken (a frame being filled counts whole: its buffer is allocated). */
  get heldBytes(): number {
    return this.filling !== null ? this.filling.frame.length + this.buffered : this.buffered;
  }

  push(chunk: Buffer): void {
    const f = this.filling;
    if (f !== null && f.filled < f.frame.length) {
      const n = Math.min(chunk.length, f.frame.length - f.filled);
      chunk.copy(f.frame, f.filled, 0, n);
      f.filled += n;
      if (n === chunk.length) return;
      chunk = chunk.subarray(n);
    }
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.chunks.length > MAX_HELD_CHUNKS) this.compact();
  }

  /** Socket reads held now (`MAX_HELD_CHUNKS` at the most once `push` returns). */
  get heldChunks(): number {
    return this.chunks.length;
  }

  /** The size of the next frame once its prefix has been read (throws FrameTooLargeError), else null. */
  nextSize(): number | null {
    if (this.filling !== null) return this.filling.frame.length;
    if (this.buffered < 4) return null;
    const size = this.peek(4).readInt32BE(0);
    if (size < 0 || size > this.maxFrameBytes) {
      throw new FrameTooLargeError(`frame size ${size} is outside 0..${this.maxFrameBytes} (${this.limitName})`);
    }
    return size;
  }

  /** Whether a whole frame is buffered (or the next one's size is bad: `next` will throw for it). */
  get holdsFrame(): boolean {
    if (this.filling !== null) return this.filling.filled === this.filling.frame.length;
    if (this.buffered < 4) return false;
    const size = this.peek(4).readInt32BE(0);
    return size < 0 || size > this.maxFrameBytes || this.buffered >= 4 + size;
  }

  /** The next complete frame (without its size prefix), or null if more bytes are needed. */
  next(): Buffer | null {
    if (this.filling !== null) {
      if (this.filling.filled < this.filling.frame.length) return null;
      const frame = this.filling.frame;
      this.filling = null;
      return frame;
    }
    const size = this.nextSize();
    if (size === null) return null;
    if (this.buffered < 4 + size) {
      if (size >= FILL_IN_PLACE_BYTES) this.startFilling(size);
      return null;
    }
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    const frame = all.subarray(4, 4 + size);
    // The usual case, a chunk holding exactly one frame, leaves nothing: no view of the rest, no new array.
    // (`pop` for the one chunk: setting the length is a call into V8's runtime.)
    if (this.chunks.length === 1) this.chunks.pop();
    else this.chunks.length = 0;
    if (all.length > 4 + size) this.chunks.push(all.subarray(4 + size));
    this.buffered = all.length - 4 - size;
    return frame;
  }

  /**
   * Too many reads held: the frame they begin is read into a buffer of its size from now on (below
   * `FILL_IN_PLACE_BYTES`: at most that much, and what its bytes will take anyway), else the reads
   * are joined into one (a big frame not yet taken, or whole frames held while the connection is
   * muted, or reads after a frame filled and not yet taken: at most `MUTED_READ_BYTES` and a read,
   * so the copies stay small).
   */
  private compact(): void {
    // A frame filled whole and not yet taken: the reads held are the next frame's (joined).
    const size = this.filling === null ? this.peek(4).readInt32BE(0) : -1;
    if (size >= 0 && size < FILL_IN_PLACE_BYTES && size <= this.maxFrameBytes && this.buffered < 4 + size) this.startFilling(size);
    else this.chunks = [Buffer.concat(this.chunks, this.buffered)];
  }

  /** Moves the bytes of the frame read so far (past its prefix) into a buffer of its size; the rest arrives there (`push`). */
  private startFilling(size: number): void {
    const frame = Buffer.allocUnsafeSlow(size);
    let filled = 0;
    let skip = 4;
    for (const chunk of this.chunks) {
      const from = Math.min(skip, chunk.length);
      skip -= from;
      filled += chunk.copy(frame, filled, from);
    }
    this.chunks = [];
    this.buffered = 0;
    this.filling = { frame, filled };
  }

  private peek(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= n) return first;
    const all = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all;
  }
}
