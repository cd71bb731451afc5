/**
 * A raw connection that writes several requests with one socket write (pipelining) and reads the
 * answers in order, checking their correlation ids (test/server/pipelining.test.ts,
 * test/e2e/transactions-v2-concurrent.test.ts). RawClient waits for each answer instead.
 */
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { expect } from 'vitest';
import { Reader, Writer } from '../../src/protocol/primitives.js';
import { API_CODECS } from '../../src/protocol/messages/index.js';

/** A request to pipeline: flexible (header v2) at its version. */
export interface PipelinedRequest {
  apiKey: keyof typeof API_CODECS;
  version: number;
  body: unknown;
}

/** A connection that writes many requests at once and reads the answers in order. */
export class Pipeliner {
  private buffered = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private wake: (() => void) | null = null;
  closed = false;

  constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= 4 + this.buffered.readInt32BE(0)) {
        const size = this.buffered.readInt32BE(0);
        this.frames.push(this.buffered.subarray(4, 4 + size));
        this.buffered = this.buffered.subarray(4 + size);
      }
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    socket.on('error', () => {});
  }

  static async connect(port: number): Promise<Pipeliner> {
    const socket = connect({ port, host: '127.0.0.1' });
    await once(socket, 'connect');
    return new Pipeliner(socket);
  }

  /** Writes `requests` (correlation ids from `firstCorrelationId`) with one socket write, plus `trailing` raw bytes. */
  write(requests: readonly PipelinedRequest[], firstCorrelationId: number, trailing = Buffer.alloc(0)): void {
    const frames = requests.map((req, i) => {
      const codec = API_CODECS[req.apiKey];
      const w = new Writer();
      w.int32(0);
      w.int16(req.apiKey);
      w.int16(req.version);
      w.int32(firstCorrelationId + i);
      w.nullableString('pipeliner', false);
      w.uvarint(0); // flexible requests only
      (codec.request.encode as (w: Writer, v: number, b: unknown) => void)(w, req.version, req.body);
      const out = Buffer.from(w.finish());
      out.writeInt32BE(out.length - 4, 0);
      return out;
    });
    this.socket.write(Buffer.concat([...frames, trailing]));
  }

  /** The next `n` answers (decoded), checking their correlation ids; fewer if the connection closes. */
  async read(requests: readonly PipelinedRequest[], firstCorrelationId: number): Promise<any[]> {
    const out: any[] = [];
    for (let i = 0; i < requests.length; i++) {
      while (this.frames.length === 0 && !this.closed) await new Promise<void>((resolve) => (this.wake = resolve));
      const frame = this.frames.shift();
      if (frame === undefined) break;
      const r = new Reader(frame);
      expect(r.int32()).toBe(firstCorrelationId + i);
      r.taggedFields(() => false);
      const codec = API_CODECS[requests[i]!.apiKey];
      out.push((codec.response.decode as (r: Reader, v: number) => unknown)(r, requests[i]!.version));
    }
    return out;
  }

  async waitClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((resolve) => (this.wake = resolve));
  }

  close(): void {
    this.socket.destroy();
  }
}

