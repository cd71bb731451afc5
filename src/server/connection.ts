import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Broker } from '../broker.js';
import { CALLS_BACK, CloseConnection, NO_RESPONSE, type ApiDefinition, type RequestContext, type RequestDone } from '../apis/types.js';
import { FILL_IN_PLACE_BYTES, FrameReader } from './frame-reader.js';
import { CLOSED_CONNECTION_BYTES, noteReleased } from '../util/idle-collection.js';
import { DECODE_IN_SLICES_BYTES, decodeRequest, decodeRequestInSlices, encodeApiVersionsFallback, encodeResponseParts, encodeResponseInSlices, type DecodedRequest, type RequestHeader } from './request-codec.js';
import { runInSlices, runSoon } from '../util/slices.js';
import { ErrorCode, errorName } from '../protocol/errors.js';
import type { ConnectionIO, FaultRegistry } from '../faults/registry.js';
import type { ListenerContext } from './listener-context.js';
import { SaslGate, type GateIO } from './sasl-gate.js';
import type { TLSSocket } from 'node:tls';
import { peerPrincipal } from '../security/tls.js';
import type { KafkaPrincipal } from '../security/principal.js';
import type { IdleClosable, IdleConnections, IdleNode } from './idle-connections.js';
import type { RequestMemoryPool } from './request-memory.js';
import { atBurstEnd, inBurst } from '../util/burst.js';
import { noteAnswered, noteClosed, noteHeard, setServingClient } from '../util/returning-clients.js';
import { runInTurn } from './turn-budget.js';
import { SocketReads } from './socket-reads.js';

let nextConnectionId = 0;

/**
 * Bytes of its next request a muted connection (a request in flight) reads before it stops reading
 * its socket: Kafka reads nothing of a muted channel; reading on a little saves the epoll changes
 * of a stop for requests answered within the turn, and this bounds what that costs per connection.
 */
export const MUTED_READ_BYTES = 64 * 1024;

/**
 * Requests answered at once (ApiVersions, Metadata, ...) that one connection serves in a row before
 * the others, and the listener, get their turn: a client pipelining thousands of them in one write
 * (adversarial trial, session 19: 50 connections x 2000 Metadata) otherwise kept the loop on its
 * data for seconds, new connections waiting up to 5.9 s. Kafka's processor takes one request per
 * muted channel per poll; eight here keeps a pipelining client's own batch cheap (32 let 20 clients
 * pipelining 500 Metadata requests each keep another's request waiting 100-450 ms, adversarial
 * trial, session 22).
 */
export const ANSWERED_IN_A_ROW = 8;

/**
 * One client connection. Requests are handled one at a time in arrival order, as Kafka mutes
 * a channel while its request is in flight, so responses leave in request order. A malformed
 * frame, an unknown API key or an unsupported version closes this connection with one warn
 * line; other connections are unaffected.
 */
export class Connection implements IdleClosable, RequestDone {
  readonly id: string;
  private readonly frames: FrameReader;
  /**
   * Reading stops when data arrives while the connection is muted (a request in flight) and its next
   * request is buffered whole already, and starts again once no whole request is buffered: pipelined
   * requests wait in the kernel, as in Kafka, and are read together instead of one read per request.
   * Not stopped at once on muting: a request answered within its turn (a burst, util/burst.ts) would
   * pay two epoll_ctl calls per stop and start for reads it would not have made.
   */
  private readonly reads: SocketReads;
  private readonly log: Logger;
  private readonly clientHost: string;
  /** Its place in `connections.max.idle.ms`' order of activity (IdleConnections). */
  idleNode: IdleNode | null = null;
  private busy = false;
  /** Waiting for the socket's 'drain': the client has not read what was written (Kafka: not yet sent). */
  private draining = false;
  /** A pump is queued for the next turn, after ANSWERED_IN_A_ROW answers. */
  private pumpQueued = false;
  private closed = false;
  /** Dropped by its listener shutting down (`destroy`), not closed by the client or a fault. */
  private shuttingDown = false;
  /** Waits of `closedWithin` under way, told when the socket closes. */
  private readonly closeWaiters = new Set<() => void>();
  /** Bytes of the next request granted by `memory` (its prefix read, its body maybe not yet). */
  private granted = 0;
  /** Waiting, unread, for `memory` to grant the next request's bytes. */
  private waitingForMemory = false;
  /** Called by `memory` when bytes come back while this connection waits for them. */
  private readonly wake = (): void => {
    this.waitingForMemory = false;
    this.socket.resume();
    this.pump();
  };
  /** Responses written during the current burst, sent together when it ends (see `write`); null outside one. */
  private held: Buffer[] | null = null;
  private readonly sendHeld = (): void => {
    const out = this.held;
    this.held = null;
    if (out !== null && !this.socket.destroyed && !this.socket.writableEnded) writeAll(this.socket, out);
  };
  /** SASL listeners: authentication before requests (null on PLAINTEXT and SSL listeners). */
  private readonly sasl: SaslGate | null;
  /** The TLS client's principal (SSL listeners with client authentication); else ANONYMOUS. */
  private readonly tlsPrincipal: KafkaPrincipal | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly broker: Broker,
    private readonly handlers: ReadonlyMap<number, ApiDefinition>,
    private readonly onClose: (c: Connection) => void,
    /** Fault rules and request log (faults/); every request goes through it when given. */
    private readonly faults?: FaultRegistry,
    /** The simulated broker whose listener accepted this connection (default `broker.nodeId`). */
    private readonly brokerId: number = broker.nodeId,
    /** The listener that accepted it (absent: the first listener, PLAINTEXT). */
    private readonly listener?: ListenerContext,
    /** `connections.max.idle.ms`: told of each request arriving and response leaving. */
    private readonly idle?: IdleConnections,
    /** `queued.max.request.bytes` (absent: no limit). */
    private readonly memory?: RequestMemoryPool,
    /** The listener's counts of requests in slices and of muted connections not read (its `ConnectionStats`). */
    private readonly stats?: { inSlices?: number; mutedUnread?: number; waitingForDrain?: number; frameReads?: number; frameChunksPeak?: number },
  ) {
    this.id = `c${++nextConnectionId}`;
    // Java reports an IPv4 peer of a dual-stack listener as plain IPv4, not ::ffff:a.b.c.d.
    this.clientHost = `/${(socket.remoteAddress ?? 'unknown').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '')}`;
    this.log = broker.log.child({ connection: this.id, remote: `${socket.remoteAddress}:${socket.remotePort}`, ...(broker.cluster.size > 1 ? { brokerId: this.brokerId } : {}) });
    this.frames = new FrameReader(broker.config.int('socket.request.max.bytes'));
    this.reads = new SocketReads(socket, stats ? (delta) => (stats.mutedUnread = (stats.mutedUnread ?? 0) + delta) : undefined);
    this.sasl = listener?.sasl ? new SaslGate(listener.sasl, broker, handlers, this.gateIO(), this.log) : null;
    const who = listener?.tls ? peerPrincipal(socket as TLSSocket, listener.tls) : null;
    this.tlsPrincipal = who && 'principal' in who ? who.principal : undefined;
    if (who && 'refused' in who) {
      this.log.info({ reason: who.refused }, 'closing connection: SSL authentication failed');
      this.closed = true;
      socket.destroy();
    }
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      this.idle?.touch(this);
      noteHeard(this);
      // Read while muted with the next request already buffered whole, or MUTED_READ_BYTES of it:
      // more is not needed yet, and a large next frame read whole behind a request in flight (a Fetch
      // waiting 60 s) would be memory no `queued.max.request.bytes` counts (adversarial trial 13:
      // 97 MB per connection).
      if (this.muted && (this.frames.holdsFrame || this.mutedReadFull())) this.reads.stop();
      this.frames.push(chunk);
      if (stats) {
        stats.frameReads = (stats.frameReads ?? 0) + 1;
        if (this.frames.heldChunks > (stats.frameChunksPeak ?? 0)) stats.frameChunksPeak = this.frames.heldChunks;
      }
      runInTurn(this.pumpNow);
    });
    socket.on('error', (err) => this.log.debug({ err: err.message }, 'socket error'));
    socket.on('close', () => {
      this.closed = true;
      this.notDraining();
      noteClosed(this);
      this.reads.forget();
      this.idle?.remove(this);
      if (this.memory) {
        this.memory.forget(this.wake);
        this.memory.release(this.granted);
        this.granted = 0;
      }
      noteReleased(CLOSED_CONNECTION_BYTES + this.frames.heldBytes);
      for (const closed of [...this.closeWaiters]) closed();
      this.log.debug('connection closed');
      if (!this.shuttingDown) this.broker.connectionClosed(this.id);
      this.onClose(this);
    });
    // Debug, as Kafka's SocketServer logs accepted and closed connections: a burst of a thousand
    // clients is otherwise two thousand lines for whoever reads stdout.
    this.log.debug('connection opened');
    this.idle?.add(this);
  }

  /** libuv's bytes of this socket's writes not yet taken by the kernel, when `answerMoving` last looked. */
  private lastWriteQueueSize = 0;

  /**
   * Whether an answer is being written and the kernel has taken some of it since the last look
   * (IdleClosable): the write queue of the socket's libuv handle shrank or changed, the measure
   * Node's own socket timeout uses to tell a slow reader from a stalled one. A client reading a
   * 10 MB Fetch answer at 0.5 MB/s was closed as idle halfway (adversarial trial, session 22).
   */
  answerMoving(): boolean {
    const size = (this.socket as unknown as { _handle?: { writeQueueSize?: number } | null })._handle?.writeQueueSize ?? 0;
    const moving = size > 0 && size !== this.lastWriteQueueSize;
    this.lastWriteQueueSize = size;
    return moving;
  }

  /** `connections.max.idle.ms` passed without a request or a response (Kafka's Selector closes it so). */
  closeIdle(idleMs: number): void {
    this.log.info({ idleMs }, 'closing idle connection (connections.max.idle.ms)');
    this.closed = true;
    this.closeSocket();
  }

  /** Closes the connection (server shutdown). */
  /**
   * Drops the connection as its listener shuts down: Kafka's SocketServer closes its channels at
   * shutdown (`Processor.closeAll`) without telling its disconnect listeners, so a share session's
   * acquired records are not released (nor written): a restart finds them as the share-group state
   * last wrote them.
   */
  destroy(): void {
    this.shuttingDown = true;
    this.closeSocket();
  }

  /**
   * Writes response bytes. During a burst (util/burst.ts: answers unblocked by a log's turn write,
   * and the pipelined requests they let through) the responses of a connection with a further
   * request buffered are held until the burst ends, so its answers of all its rounds leave in one
   * write (one syscall instead of one per response; no cork). A connection with nothing more
   * buffered gets no further answer in this burst (no socket is read during one), so its answer
   * leaves at once, not after every other connection's answer of the turn: with 16 connections
   * committing one at a time, answers went out ~110 us after the turn's write began, on average,
   * half of it waiting for the other connections' answers and socket writes. The connection is
   * still muted from each request until its response is written. `bytes` may be a response's
   * parts (encodeResponseParts), written together.
   */
  private write(bytes: Buffer | Buffer[]): void {
    if (this.held !== null) {
      if (Array.isArray(bytes)) this.held.push(...bytes);
      else this.held.push(bytes);
      return;
    }
    if (inBurst() && this.frames.holdsFrame) {
      this.held = Array.isArray(bytes) ? [...bytes] : [bytes];
      atBurstEnd(this.sendHeld);
      return;
    }
    if (Array.isArray(bytes)) writeAll(this.socket, bytes);
    else this.socket.write(bytes);
    // Nothing more of this client's read: it may be one committing one request at a time, whose next
    // commit a log under 'always' waits a moment for (util/returning-clients.ts).
    if (!this.closed && !this.frames.holdsFrame) noteAnswered(this);
  }

  /** Sends what is held, then closes (destroy would drop held answers). */
  private closeSocket(): void {
    this.sendHeld();
    this.socket.destroy();
  }

  private readonly pumpNow = (): void => this.pump();

  /**
   * Serves the requests buffered; reading starts again once no next request waits whole (see
   * `reads`), unless the connection waits for `queued.max.request.bytes` (the pool resumes it).
   */
  private pump(): void {
    this.serveBuffered();
    if (this.reads.isStopped && !this.closed && !this.frames.holdsFrame && !this.mutedReadFull() && !this.waitingForMemory) this.reads.start();
  }

  /**
   * Takes no next request: one is in flight, its answer is not yet read by the client, or others
   * get a turn first (ANSWERED_IN_A_ROW).
   */
  private get muted(): boolean {
    return this.busy || this.draining || this.pumpQueued;
  }

  /** Muted with MUTED_READ_BYTES of its next request read: not read until answered. */
  private mutedReadFull(): boolean {
    return this.muted && this.frames.heldBytes >= MUTED_READ_BYTES;
  }

  private readonly drained = (): void => {
    this.notDraining();
    this.pump();
  };

  private notDraining(): void {
    if (!this.draining) return;
    this.draining = false;
    if (this.stats) this.stats.waitingForDrain = (this.stats.waitingForDrain ?? 1) - 1;
  }

  private readonly queuedPump = (): void => {
    this.pumpQueued = false;
    this.pump();
  };

  private serveBuffered(): void {
    let answered = 0;
    while (!this.muted && !this.closed) {
      // Kafka unmutes a channel once its response is sent: a client that does not read its answers
      // gets no further request served (they wait in the kernel), so what is written to it stays
      // bounded (one response past the socket's high-water mark) instead of growing with its requests.
      if (this.socket.writableNeedDrain) {
        this.draining = true;
        if (this.stats) this.stats.waitingForDrain = (this.stats.waitingForDrain ?? 0) + 1;
        this.socket.once('drain', this.drained);
        return;
      }
      if (answered === ANSWERED_IN_A_ROW && this.frames.holdsFrame) {
        this.pumpQueued = true;
        setImmediate(this.queuedPump);
        return;
      }
      let frame: Buffer | null;
      try {
        if (this.sasl !== null) this.limitSaslFrames(this.sasl);
        if (this.memory && !this.grantNext()) return;
        frame = this.frames.next();
      } catch (err) {
        this.refuse(null, (err as Error).message);
        return;
      }
      if (frame === null) return;
      // The request's memory goes back once it has been answered.
      const held = this.granted;
      this.granted = 0;
      const done = this.sasl !== null && this.sasl.intercepts(frame) ? this.sasl.receive(frame) : this.handleFrame(frame, true);
      // A large frame's buffer is let go once answered (util/idle-collection.ts may then collect it).
      const large = frame.length >= FILL_IN_PLACE_BYTES ? frame.length : 0;
      if (!done) {
        this.memory?.release(held);
        if (large > 0) noteReleased(large);
        answered++;
      } else {
        this.busy = true;
        this.inFlightBytes = held;
        this.inFlightLargeFrame = large;
        // CALLS_BACK: the request calls `requestDone` or `requestFailed` itself.
        if (done !== CALLS_BACK) done.then(this.requestDone, this.requestFailed);
      }
    }
  }

  /**
   * Kafka reads a SASL connection's frames with a NetworkReceive of `sasl.server.max.receive.size`
   * (512 KiB) until it is authenticated, so an unauthenticated client cannot make it buffer
   * `socket.request.max.bytes` (adversarial trial 10: ten 90 MB SaslAuthenticate frames, 590 MB).
   */
  private limitSaslFrames(sasl: SaslGate): void {
    if (sasl.authenticating === this.saslFramesLimited) return;
    this.saslFramesLimited = sasl.authenticating;
    const config = this.broker.config;
    const requestMax = config.int('socket.request.max.bytes');
    if (sasl.authenticating) this.frames.limit(Math.min(config.int('sasl.server.max.receive.size'), requestMax), 'sasl.server.max.receive.size');
    else this.frames.limit(requestMax, 'socket.request.max.bytes');
  }
  private saslFramesLimited = false;

  /** The memory of the request in flight (one at a time: the connection is muted meanwhile). */
  private inFlightBytes = 0;
  /** Its frame's size if `FILL_IN_PLACE_BYTES` or more, else 0. */
  private inFlightLargeFrame = 0;
  /** The request in flight ended (answered or not): the next one may be taken (RequestDone). */
  readonly requestDone = (): void => {
    this.memory?.release(this.inFlightBytes);
    this.inFlightBytes = 0;
    if (this.inFlightLargeFrame > 0) this.releaseLargeFrame();
    this.busy = false;
    this.pump();
  };
  /** The request in flight failed: the connection closes (RequestDone). */
  readonly requestFailed = (err: unknown): void => {
    // A request that closes its connection gives its memory back too (else the pool shrinks for good).
    this.memory?.release(this.inFlightBytes);
    this.inFlightBytes = 0;
    if (this.inFlightLargeFrame > 0) this.releaseLargeFrame();
    if (err instanceof CloseConnection) this.log.info({ reason: err.message }, 'closing the connection');
    else this.log.error({ err }, 'request handler failed; closing the connection');
    this.closeSocket();
  };

  private releaseLargeFrame(): void {
    noteReleased(this.inFlightLargeFrame);
    this.inFlightLargeFrame = 0;
  }

  /**
   * `queued.max.request.bytes`: the next request's size is taken from the pool once its prefix is
   * read. False while the pool is used up: reading stops until a request somewhere is answered.
   */
  private grantNext(): boolean {
    if (this.granted > 0) return true;
    const size = this.frames.nextSize();
    if (size === null) return true;
    if (this.memory!.tryAllocate(size + 4)) {
      this.granted = size + 4;
      return true;
    }
    this.waitingForMemory = true;
    this.socket.pause();
    this.memory!.waitForMemory(this.wake);
    return false;
  }

  /**
   * Handles one frame; returns a promise while the response is pending, or null if done
   * synchronously; with `callsBack` (the frame is `pump`'s), `CALLS_BACK` when the request will
   * call `requestDone` or `requestFailed` itself. A frame of `DECODE_IN_SLICES_BYTES` or more is
   * decoded a slice per turn of the event loop, so that other connections are served meanwhile
   * (this one stays muted).
   */
  private handleFrame(frame: Buffer, callsBack: false): Promise<void> | null;
  private handleFrame(frame: Buffer, callsBack: boolean): Promise<void> | null | typeof CALLS_BACK;
  private handleFrame(frame: Buffer, callsBack: boolean): Promise<void> | null | typeof CALLS_BACK {
    if (frame.length >= DECODE_IN_SLICES_BYTES) return this.handleInSlices(frame);
    let decoded;
    try {
      decoded = decodeRequest(frame, this.handlers);
    } catch (err) {
      this.refuse(null, undecodable(err));
      return null;
    }
    return this.serve(decoded, undefined, callsBack);
  }

  private async handleInSlices(frame: Buffer): Promise<void> {
    if (this.stats) this.stats.inSlices = (this.stats.inSlices ?? 0) + 1;
    try {
      let decoded;
      try {
        decoded = await runInSlices(decodeRequestInSlices(frame, this.handlers));
      } catch (err) {
        this.refuse(null, undecodable(err));
        return;
      }
      if (this.closed) return;
      const written: Array<Promise<void>> = [];
      await this.serve(decoded, written);
      // The response, encoded in slices too, leaves before the connection takes its next request.
      await Promise.all(written);
    } finally {
      if (this.stats) this.stats.inSlices = (this.stats.inSlices ?? 1) - 1;
    }
  }

  /**
   * Serves a decoded request; with `inSlices`, its response is encoded in slices and the promise of
   * its writing added there; with `callsBack`, the request may end by calling `requestDone` or
   * `requestFailed` (returning `CALLS_BACK`).
   */
  private serve(decoded: DecodedRequest, inSlices?: Array<Promise<void>>, callsBack = false): Promise<void> | null | typeof CALLS_BACK {
    if (decoded.kind === 'refused') {
      this.refuse(decoded.header, decoded.reason);
      return null;
    }
    const { header } = decoded;
    if (decoded.kind === 'api-versions-unsupported') {
      this.log.debug({ api: 'ApiVersions', version: header.apiVersion, clientId: header.clientId }, 'ApiVersions of a version we do not serve: answering UNSUPPORTED_VERSION');
      this.write(encodeApiVersionsFallback(header, this.handlers.get(18)!));
      return null;
    }
    const ctx: RequestContext = {
      apiKey: header.apiKey,
      apiVersion: header.apiVersion,
      correlationId: header.correlationId,
      clientId: header.clientId,
      clientHost: this.clientHost,
      connectionId: this.id,
      broker: this.broker,
      brokerId: this.brokerId,
      listener: this.listener?.spec.name,
      principal: this.sasl?.principal ?? this.tlsPrincipal,
      log: this.log,
    };
    // An answer that may be large is encoded in slices too, and the connection stays muted until
    // it is written (`largeAnswers`); a request decoded in slices has its caller wait for that.
    const ownWrites = inSlices === undefined && decoded.api.largeAnswers ? [] : undefined;
    const io = new RequestIO(this, decoded.api, decoded.body, header, inSlices ?? ownWrites);
    // A handler or encoder that throws (a value the response version cannot carry, a failed
    // append) costs this connection only, never the process.
    // Appends the handler makes before its first await are this connection's (util/returning-clients.ts).
    setServingClient(this);
    try {
      let pending: Promise<void> | null = null;
      // Fault rules may answer instead of the handler, around it, or not at all.
      if (this.faults) {
        const whenDone = callsBack && ownWrites === undefined && inSlices === undefined ? this : undefined;
        const dispatched = this.faults.dispatch(decoded.api, decoded.body, ctx, io, whenDone);
        if (dispatched === CALLS_BACK) return CALLS_BACK;
        pending = dispatched;
      } else {
        const result = decoded.api.handle(decoded.body, ctx);
        if (result instanceof Promise) pending = result.then((response) => io.send(response));
        else io.send(result);
      }
      return ownWrites === undefined ? pending : untilWritten(pending, ownWrites);
    } catch (err) {
      if (err instanceof CloseConnection) this.log.info({ api: decoded.api.name, reason: err.message }, 'closing the connection');
      else this.log.error({ err, api: decoded.api.name, version: header.apiVersion, clientId: header.clientId }, 'request failed; closing the connection');
      this.closed = true;
      this.closeSocket();
    } finally {
      setServingClient(null);
    }
    return null;
  }

  /**
   * Sends a request's response (see `RequestIO.send`); `inSlices`: encoded in slices, the promise of
   * its writing added there. A response its version cannot carry (a string over 32,767 bytes built
   * from a request's name, as an error message naming it) is replaced by `fallback`'s answer,
   * as Kafka's `KafkaApis.handle` answers the request's error response with UNKNOWN_SERVER_ERROR when
   * serializing fails (adversarial trial, session 33).
   */
  answer(apiName: string, header: RequestHeader, response: unknown, inSlices: Array<Promise<void>> | undefined, fallback?: UnencodableFallback): void {
    if (response === NO_RESPONSE || this.closed) return;
    if (this.log.isLevelEnabled('debug')) {
      this.log.debug({ api: apiName, version: header.apiVersion, clientId: header.clientId, correlationId: header.correlationId, error: topError(response) }, 'request');
    }
    if (inSlices) {
      let bytes: Buffer[] | Promise<Buffer[]>;
      try {
        bytes = runSoon(encodeResponseInSlices(header, response));
      } catch (err) {
        this.answerUnencodable(apiName, header, err, fallback);
        return;
      }
      if (bytes instanceof Promise) inSlices.push(bytes.then(this.sendEncoded, (err: unknown) => this.answerUnencodable(apiName, header, err, fallback)));
      else this.sendEncoded(bytes);
      return;
    }
    let bytes: Buffer | Buffer[];
    try {
      bytes = encodeResponseParts(header, response);
    } catch (err) {
      this.answerUnencodable(apiName, header, err, fallback);
      return;
    }
    this.write(bytes);
    this.idle?.touch(this);
  }

  /**
   * Answers `fallback`'s response instead of one that could not be encoded (`err`; rethrown without
   * a fallback). When that one cannot be encoded either (it echoes the name that made the answer too
   * long), the connection is closed: Kafka then leaves the request unanswered.
   */
  private answerUnencodable(apiName: string, header: RequestHeader, err: unknown, fallback: UnencodableFallback | undefined): void {
    if (fallback === undefined) throw err;
    if (this.closed) return;
    const where = { err, api: apiName, version: header.apiVersion, clientId: header.clientId };
    let bytes: Buffer | Buffer[];
    try {
      bytes = encodeResponseParts(header, fallback.unencodableResponse());
    } catch {
      this.log.warn(where, 'neither the response nor its error response could be encoded; closing the connection');
      this.closeNow();
      return;
    }
    this.log.warn(where, 'the response could not be encoded; answering UNKNOWN_SERVER_ERROR');
    this.write(bytes);
    this.idle?.touch(this);
  }

  /** Writes a response encoded in slices (its parts), unless the connection closed meanwhile. */
  private readonly sendEncoded = (bytes: Buffer[]): void => {
    if (this.closed) return;
    this.write(bytes);
    this.idle?.touch(this);
  };

  /** Closes the connection for a fault action or a failed request; nothing more is read. */
  closeNow(): void {
    this.closed = true;
    this.closeSocket();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Dropped by its listener shutting down (`destroy`): a stopped broker, the server closing. */
  get droppedByShutdown(): boolean {
    return this.shuttingDown;
  }

  whenClosed(): Promise<void> {
    return this.socket.destroyed ? Promise.resolve() : new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  /** ConnectionIO.closedWithin: a timer and an entry in `closeWaiters`, both gone once it resolves. */
  closedWithin(ms: number): Promise<boolean> {
    if (this.socket.destroyed) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (closed: boolean): void => {
        clearTimeout(timer);
        this.closeWaiters.delete(onClose);
        resolve(closed);
      };
      const onClose = (): void => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.closeWaiters.add(onClose);
    });
  }

  private gateIO(): GateIO {
    return {
      write: (bytes) => {
        if (!this.closed) this.write(bytes);
      },
      close: (reason) => this.refuse(null, reason),
      failAndClose: (response, reason, delayMs) => {
        this.log.info({ reason }, 'authentication failed; closing the connection');
        // Nothing more is read: Kafka mutes the channel until the delayed close.
        this.closed = true;
        const finish = () => {
          // Answers held for the burst leave first, in order.
          this.sendHeld();
          if (response && !this.socket.destroyed) this.socket.end(response);
          else this.closeSocket();
        };
        if (delayMs > 0) setTimeout(finish, delayMs).unref();
        else finish();
      },
      serveRequest: (frame) => this.handleFrame(frame, false),
    };
  }

  private refuse(header: { apiKey: number; apiVersion: number; clientId: string } | null, reason: string): void {
    this.log.warn({ apiKey: header?.apiKey, apiVersion: header?.apiVersion, clientId: header?.clientId }, `closing connection: ${reason}`);
    this.closed = true;
    this.closeSocket();
  }
}

/**
 * Why a frame could not be decoded: malformed, or (an error of the system, as EMFILE loading the
 * API's codec when the process is out of file descriptors) not the frame's fault at all, which the
 * log must not call malformed (adversarial trial, session 22).
 */
function undecodable(err: unknown): string {
  const message = (err as Error).message;
  return typeof (err as { syscall?: unknown }).syscall === 'string' ? `could not decode the request: ${message}` : `malformed request: ${message}`;
}

/** What answers a request whose response could not be encoded (`Connection.answer`). */
interface UnencodableFallback {
  unencodableResponse(): unknown;
}

/**
 * The way back for one request (what fault actions answer through): one object per request
 * instead of a set of closures, as every request makes one.
 */
class RequestIO implements ConnectionIO {
  constructor(
    private readonly connection: Connection,
    private readonly api: ApiDefinition,
    private readonly body: unknown,
    private readonly header: RequestHeader,
    private readonly inSlices: Array<Promise<void>> | undefined,
  ) {}

  send(response: unknown): void {
    this.connection.answer(this.api.name, this.header, response, this.inSlices, this);
  }

  /** The request's error response with UNKNOWN_SERVER_ERROR, for an answer that could not be encoded. */
  unencodableResponse(): unknown {
    return this.api.errorResponse(this.body, this.header.apiVersion, ErrorCode.UNKNOWN_SERVER_ERROR);
  }

  close(): void {
    this.connection.closeNow();
  }

  isClosed(): boolean {
    return this.connection.isClosed;
  }

  whenClosed(): Promise<void> {
    return this.connection.whenClosed();
  }

  droppedByShutdown(): boolean {
    return this.connection.droppedByShutdown;
  }

  closedWithin(ms: number): Promise<boolean> {
    return this.connection.closedWithin(ms);
  }
}

/**
 * The request is done once its handler has answered (`pending`, null when it answered at once) and
 * the answers being encoded in slices (`writes`, filled by then) are written: null when all was at once.
 */
function untilWritten(pending: Promise<void> | null, writes: Array<Promise<void>>): Promise<void> | null {
  if (pending === null) return writes.length === 0 ? null : Promise.all(writes).then(noop);
  return pending.then(() => (writes.length === 0 ? undefined : Promise.all(writes).then(noop)));
}

function noop(): void {}

/** Responses held during a burst, in one write: small ones joined, large ones through a corked writev (no copy). */
function writeAll(socket: Socket, out: Buffer[]): void {
  if (out.length === 1) {
    socket.write(out[0]!);
    return;
  }
  let bytes = 0;
  for (const b of out) bytes += b.length;
  if (bytes <= JOIN_MAX_BYTES) {
    socket.write(Buffer.concat(out, bytes));
    return;
  }
  socket.cork();
  for (const b of out) socket.write(b);
  socket.uncork();
}

/** Held responses up to this many bytes in all are copied into one buffer; larger ones are not copied. */
const JOIN_MAX_BYTES = 64 * 1024;

function topError(response: unknown): string | undefined {
  const code = (response as { errorCode?: unknown }).errorCode;
  return typeof code === 'number' && code !== 0 ? errorName(code) : undefined;
}
