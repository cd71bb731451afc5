import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { once } from 'node:events';
import { Reader, Writer } from '../../src/protocol/primitives.js';
import { API_CODECS, type ApiKeyWithCodec } from '../../src/protocol/messages/index.js';

/**
 * A minimal Kafka client for tests built on our generated codecs (the reverse direction:
 * encode requests, decode responses). One request at a time.
 */
export class RawClient {
  private buffered = Buffer.alloc(0);
  private waiting: ((frame: Buffer) => void) | null = null;
  private correlationId = 0;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.drain();
    });
    socket.on('close', () => {
      this.closed = true;
    });
    // A server that resets the connection (a test's SIGKILL, a refused frame) shows up as 'close'.
    socket.on('error', () => {});
  }

  static async connect(port: number, host = '127.0.0.1'): Promise<RawClient> {
    const socket = connect({ port, host });
    await once(socket, 'connect');
    return new RawClient(socket);
  }

  /** Connects to `port`; the socket is destroyed by `cleanups` (a test's list, run at its end). */
  static async connectCleaned(port: number, cleanups: Array<() => Promise<void> | void>): Promise<RawClient> {
    const c = await RawClient.connect(port);
    cleanups.push(() => void c.socket.destroy());
    return c;
  }

  /** Connects over TLS (`options`: ca, key, cert, servername...); resolves once the handshake completed on our side. */
  static async connectTls(port: number, options: ConnectionOptions, host = '127.0.0.1'): Promise<RawClient> {
    const socket = tlsConnect({ port, host, ...options });
    await once(socket, 'secureConnect');
    return new RawClient(socket);
  }

  private drain(): void {
    if (!this.waiting || this.buffered.length < 4) return;
    const size = this.buffered.readInt32BE(0);
    if (this.buffered.length < 4 + size) return;
    const frame = this.buffered.subarray(4, 4 + size);
    this.buffered = this.buffered.subarray(4 + size);
    const w = this.waiting;
    this.waiting = null;
    w(frame);
  }

  /** Sends raw bytes (already framed or not: the caller decides). */
  writeRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /**
   * Resolves when the server closes the connection. With `ms`, rejects if it is still open after
   * that long: only for probing whether a server closes at all (the conformance suite against a
   * real broker); a test of our server waits for the close, its own timeout catching a hang.
   */
  async waitClosed(ms?: number): Promise<void> {
    if (this.closed) return;
    // 'close' only: a reset connection emits 'error' first, and is closed all the same.
    const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    if (ms === undefined) return closed;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        closed,
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('connection was not closed')), ms))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The next frame, or a rejection when the connection closes first. No timer: a response waits as
   * long as the server's work takes (a loaded machine makes it later, never wrong); a server that
   * never answers is caught by the test's own timeout.
   */
  private nextFrame(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const onClose = (): void => {
        this.waiting = null;
        reject(new Error('connection closed before a response'));
      };
      this.waiting = (frame) => {
        this.socket.off('close', onClose);
        resolve(frame);
      };
      this.drain();
      if (this.waiting === null) return;
      if (this.closed) onClose();
      else this.socket.once('close', onClose);
    });
  }

  /** Sends a request at `version` and decodes the response at the same version. */
  async send<K extends ApiKeyWithCodec>(
    apiKey: K,
    version: number,
    body: Parameters<(typeof API_CODECS)[K]['request']['encode']>[2],
    clientId = 'raw-test',
  ): Promise<ReturnType<(typeof API_CODECS)[K]['response']['decode']>> {
    const codec = API_CODECS[apiKey];
    const flexible = codec.request.FIRST_FLEXIBLE_VERSION >= 0 && version >= codec.request.FIRST_FLEXIBLE_VERSION;
    const correlationId = this.write(apiKey, version, body, clientId);
    const frame = await this.nextFrame();
    const r = new Reader(frame);
    const got = r.int32();
    if (got !== correlationId) throw new Error(`correlation id ${got}, expected ${correlationId}`);
    if (flexible && apiKey !== 18) r.taggedFields(() => false);
    return (codec.response.decode as (r: Reader, v: number) => any)(r, version);
  }

  /** Sends a request whose client expects no answer (a Produce with acks=0); nothing is read. */
  sendUnanswered<K extends ApiKeyWithCodec>(apiKey: K, version: number, body: Parameters<(typeof API_CODECS)[K]['request']['encode']>[2], clientId = 'raw-test'): void {
    this.write(apiKey, version, body, clientId);
  }

  /** Writes a request at `version`; returns its correlation id. */
  private write(apiKey: ApiKeyWithCodec, version: number, body: unknown, clientId: string): number {
    const codec = API_CODECS[apiKey];
    const flexible = codec.request.FIRST_FLEXIBLE_VERSION >= 0 && version >= codec.request.FIRST_FLEXIBLE_VERSION;
    const w = new Writer();
    w.int32(0);
    w.int16(apiKey);
    w.int16(version);
    const correlationId = ++this.correlationId;
    w.int32(correlationId);
    w.nullableString(clientId, false);
    if (flexible) w.uvarint(0);
    (codec.request.encode as (w: Writer, v: number, b: unknown) => void)(w, version, body);
    const out = w.finish();
    out.writeInt32BE(out.length - 4, 0);
    this.socket.write(Buffer.from(out));
    return correlationId;
  }

  /** Sends a request frame and returns the raw response body bytes after the correlation id. */
  async sendRawRequest(apiKey: number, version: number, body: Buffer): Promise<Buffer> {
    const w = new Writer();
    w.int32(0);
    w.int16(apiKey);
    w.int16(version);
    w.int32(++this.correlationId);
    w.nullableString('raw-test', false);
    w.raw(body);
    const out = w.finish();
    out.writeInt32BE(out.length - 4, 0);
    this.socket.write(Buffer.from(out));
    const frame = await this.nextFrame();
    return frame.subarray(4);
  }

  /** Sends one size-prefixed frame of `payload` (no request header) and resolves with the next frame (SASL v0 tokens). */
  async exchangeFrame(payload: Buffer): Promise<Buffer> {
    const out = Buffer.alloc(4 + payload.length);
    out.writeInt32BE(payload.length, 0);
    payload.copy(out, 4);
    this.socket.write(out);
    return this.nextFrame();
  }

  close(): void {
    this.socket.destroy();
  }
}
