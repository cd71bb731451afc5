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
 * TLS sockets are left alone (their handle is the TLS layer, not the TCP stream).
 */
export class SocketReads {
  private readonly handle: ReadHandle | null;
  private stopped = false;

  constructor(socket: Socket) {
    this.handle = (socket as { encrypted?: boolean }).encrypted === true ? null : readHandleOf(socket);
  }

  /** Whether reading is stopped by `stop` (and not yet restarted). */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Stops reading the socket (no-op when stopped already, when Node is not reading it, or on TLS). */
  stop(): void {
    const h = this.handle;
    if (this.stopped || h === null || h.reading !== true) return;
    if (h.readStop() === 0) this.stopped = true;
  }

  /** Reads again after `stop`. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const h = this.handle!;
    // Node restarts reading itself when it has stopped it meanwhile (its flag false: a full buffer).
    if (h.reading === true) h.readStart();
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
