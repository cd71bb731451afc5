/**
 * A request frame sent one byte per write (adversarial trial 14: ten connections dribbling 3.3 MB
 * took the RSS from 52 to 204 MiB, a Buffer per socket read): the server holds at most
 * `MAX_HELD_CHUNKS` reads of it (`connections.frameChunksPeak`), then its bytes in one buffer of
 * its size, and answers it as any other. Each byte is written once the server has read the one
 * before (`connections.frameReads`), so every byte is a read of its own whatever the machine's speed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { MAX_HELD_CHUNKS } from '../../src/server/frame-reader.js';
import { metadata, nextTurn } from '../support/big-requests.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a frame dribbled a byte per write', () => {
  it('is held as MAX_HELD_CHUNKS reads at the most, then answered as sent whole', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const client = await RawClient.connect(server.port);
    cleanups.push(() => client.close());
    const names = Array.from({ length: 60 }, (_, i) => `dribbled-topic-${i}`);
    // The frame RawClient would send, taken from its write, then sent a byte at a time.
    const socket = client.socket;
    const write = socket.write.bind(socket) as (b: Buffer) => boolean;
    let frame: Buffer | null = null;
    (socket as { write: unknown }).write = (b: Buffer) => {
      frame = Buffer.from(b);
      return true;
    };
    const answered = client.send(3, 12, metadata(names));
    (socket as { write: unknown }).write = write;
    const bytes = frame! as Buffer;
    expect(bytes.length).toBeGreaterThan(MAX_HELD_CHUNKS * 20);
    const readsBefore = server.connections.frameReads!;
    for (let i = 0; i < bytes.length; i++) {
      write(bytes.subarray(i, i + 1));
      while (server.connections.frameReads! < readsBefore + i + 1) await nextTurn();
    }
    const res = await answered;
    expect(server.connections.frameReads! - readsBefore).toBe(bytes.length);
    expect(server.connections.frameChunksPeak).toBe(MAX_HELD_CHUNKS);
    expect(res.topics.map((t) => [t.name, t.errorCode])).toEqual(names.map((n) => [n, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]));
  });
});
