/**
 * A small Kafka protocol client for the command-line tools, over our generated codecs: one
 * connection, requests answered in order (Kafka answers each connection's requests in the
 * order sent), request header v1/v2 and response header v0/v1 chosen by flexibility
 * (ApiVersions responses always use header v0).
 */
import { connect, type Socket } from 'node:net';
import { Reader, Writer } from '../protocol/primitives.js';
import { API_CODECS, type ApiKeyWithCodec } from '../protocol/messages/index.js';

export type RequestBody<K extends ApiKeyWithCodec> = Parameters<(typeof API_CODECS)[K]['request']['encode']>[2];
export type ResponseBody<K extends ApiKeyWithCodec> = ReturnType<(typeof API_CODECS)[K]['response']['decode']>;

interface Pending {
  correlationId: number;
  resolve(frame: Buffer): void;
  reject(err: Error): void;
}

export class KafkaClientError extends Error {}

/** Parses `host:port` (IPv6 as `[::1]:9092`). */
export function parseHostPort(text: string): { host: string; port: number } {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(text.trim());
  if (!m || !m[1] || Number(m[2]) > 65535) throw new KafkaClientError(`expected host:port, got "${text}"`);
  return { host: m[1], port: Number(m[2]) };
}

export class KafkaClient {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly pending: Pending[] = [];
  private correlationId = 0;
  private closedError: Error | null = null;

  private constructor(
    private readonly socket: Socket,
    readonly host: string,
    readonly port: number,
    private readonly clientId: string,
    private readonly timeoutMs: number,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      this.drain();
    });
    const fail = (err: Error): void => {
      this.closedError ??= err;
      for (const p of this.pending.splice(0)) p.reject(err);
    };
    socket.on('error', (err) => fail(new KafkaClientError(`connection to ${host}:${port} failed: ${err.message}`)));
    socket.on('close', () => fail(new KafkaClientError(`connection to ${host}:${port} closed`)));
  }

  static connect(host: string, port: number, options: { clientId?: string; timeoutMs?: number } = {}): Promise<KafkaClient> {
    const timeoutMs = options.timeoutMs ?? 30000;
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new KafkaClientError(`timed out connecting to ${host}:${port}`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new KafkaClient(socket, host, port, options.clientId ?? 'kafka-mock-coordinator-tools', timeoutMs));
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(new KafkaClientError(`cannot connect to ${host}:${port}: ${err.message}`));
      });
    });
  }

  private drain(): void {
    while (this.buffered.length >= 4) {
      const size = this.buffered.readInt32BE(0);
      if (this.buffered.length < 4 + size) return;
      const frame = this.buffered.subarray(4, 4 + size);
      this.buffered = this.buffered.subarray(4 + size);
      const p = this.pending.shift();
      if (!p) continue;
      const got = frame.readInt32BE(0);
      if (got !== p.correlationId) p.reject(new KafkaClientError(`correlation id ${got}, expected ${p.correlationId}`));
      else p.resolve(frame);
    }
  }

  /** Sends a request at `version` and decodes the response at the same version. */
  async send<K extends ApiKeyWithCodec>(apiKey: K, version: number, body: RequestBody<K>): Promise<ResponseBody<K>> {
    if (this.closedError) throw this.closedError;
    const codec = API_CODECS[apiKey];
    const flexible = codec.request.FIRST_FLEXIBLE_VERSION >= 0 && version >= codec.request.FIRST_FLEXIBLE_VERSION;
    const w = new Writer();
    w.int32(0);
    w.int16(apiKey);
    w.int16(version);
    const correlationId = ++this.correlationId;
    w.int32(correlationId);
    w.nullableString(this.clientId, false);
    if (flexible) w.uvarint(0);
    (codec.request.encode as (w: Writer, v: number, b: unknown) => void)(w, version, body);
    const out = w.finish();
    out.writeInt32BE(out.length - 4, 0);
    const frame = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new KafkaClientError(`no response to API ${apiKey} v${version} from ${this.host}:${this.port} within ${this.timeoutMs} ms`)), this.timeoutMs);
      this.pending.push({
        correlationId,
        resolve: (f) => { clearTimeout(timer); resolve(f); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      this.socket.write(Buffer.from(out));
    });
    const r = new Reader(frame);
    r.int32();
    if (flexible && apiKey !== 18) r.taggedFields(() => false);
    return (codec.response.decode as (r: Reader, v: number) => ResponseBody<K>)(r, version);
  }

  close(): void {
    this.closedError ??= new KafkaClientError('client closed');
    this.socket.destroy();
  }
}
