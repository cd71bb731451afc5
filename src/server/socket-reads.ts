import type { Socket } from 'node:net';

/**
 * Stops and restarts reading one plain TCP socket, for a muted connection that already holds its
 * next complete request: Kafka's `Processor` does not read a muted channel (its selection key drops
 * OP_READ until the response is sent), so the bytes of further pipelined requests stay in the
 * kernel and are taken later in one read. `socket.pause()` does not do this: a net.Socket without
 * `onread` keeps reading into its stream buffer until `readableHighWaterMark` (16 KiB), one read
 * syscall and one poll wake-up per small request that arrives (issue #16: at 16 connections x 16
 * pipelined OffsetCommits under `mock.flush.policy=always`, ~1 read per commit).
 *
 * Uses the handle's own readStop()/readStart() (what `socket.pause()` calls for an `onread`
 * socket) and leaves Node's `handle.reading` flag as it was, so Node's stream never restarts reading
 * behind this; a readStart() of a handle Node restarted meanwhile just answers UV_EALREADY (ignored).
 * A TLS socket's handle is the TLS layer, not the TCP stream: it is paused instead, which stops its
 * 'data' events at once and its reads once its stream buffer holds `readableHighWaterMark` (16 KiB)
 * of decrypted bytes (adversarial trial 13: never stopped, one TLS connection buffered 630 MB of
 * pipelined frames behind a Fetch in flight).
 */
export class SocketReads {
  private readonly handle: ReadHandle | null;
  /** The TLS socket, paused and resumed as a stream (null for plain TCP). */
  private readonly tls: Socket | null;
  private stopped = false;

  constructor(
    socket: Socket,
    /** Told of each stop (+1) and start (-1): the listener's count of connections not read while muted. */
    private readonly onChange?: (delta: 1 | -1) => void,
  ) {
    const encrypted = (socket as { encrypted?: boolean }).encrypted === true;
    this.tls = encrypted ? socket : null;
    this.handle = encrypted ? null : readHandleOf(socket);
  }

  /** Whether reading is stopped by `stop` (and not yet restarted). */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Stops reading the socket (no-op when stopped already, or when Node is not reading it). */
  stop(): void {
    if (this.stopped) return;
    if (this.tls !== null) {
      this.tls.pause();
    } else {
      const h = this.handle;
      if (h === null || h.reading !== true || h.readStop() !== 0) return;
    }
    this.stopped = true;
    this.onChange?.(1);
  }

  /** Reads again after `stop`. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.onChange?.(-1);
    if (this.tls !== null) {
      this.tls.resume();
      return;
    }
    const h = this.handle!;
    // Node restarts reading itself when it has stopped it meanwhile (its flag false: a full buffer).
    if (h.reading === true) h.readStart();
  }

  /** The connection closed: a stop still counted is taken back (the socket is gone, not read). */
  forget(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.onChange?.(-1);
  }
}

/** The part of Node's TCP stream handle (`socket._handle`) used here. */
interface ReadHandle {
  reading?: boolean;
  readStop(): number;
  readStart(): number;
}

function readHandleOf(socket: Socket): ReadHandle | null {
  const h = (socket as unknown as { _handle?: Partial<ReadHandle> | null })._handle;
  return h != null && typeof h.readStop === 'function' && typeof h.readStart === 'function' ? (h as ReadHandle) : null;
}
