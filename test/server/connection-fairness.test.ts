/**
 * One connection cannot keep the others waiting (adversarial trial, session 19): a client that
 * pipelines many requests answered at once is served ANSWERED_IN_A_ROW of them per turn, so another
 * connection's request read meanwhile is answered before its last; and a client that does not read
 * its answers is served no further request until it does (`connections.waitingForDrain`), as Kafka
 * unmutes a channel only once its response is sent, so what is written to it stays bounded. Order
 * is read from the request log's sequence numbers (the order the server took the requests in), and
 * waits are for the server's counters, not for time.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Reader, Writer } from '../../src/protocol/primitives.js';
import { API_CODECS } from '../../src/protocol/messages/index.js';
import { ANSWERED_IN_A_ROW } from '../../src/server/connection.js';
import { nextTurn } from '../support/big-requests.js';
import type { ServerHandle } from '../../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const API_VERSIONS = 18;
const METADATA = 3;
const allTopics = { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false };


async function connect(server: ServerHandle): Promise<RawClient> {
  const client = await RawClient.connect(server.port);
  cleanups.push(() => client.close());
  return client;
}

/** Request frames (non-flexible versions only) with correlation ids 1..count, in one buffer. */
function frames(apiKey: 3 | 18, version: number, body: unknown, count: number, clientId: string): Buffer {
  return Buffer.concat(
    Array.from({ length: count }, (_, i) => {
      const w = new Writer();
      w.int32(0);
      w.int16(apiKey);
      w.int16(version);
      w.int32(i + 1);
      w.nullableString(clientId, false);
      (API_CODECS[apiKey].request.encode as (w: Writer, v: number, b: unknown) => void)(w, version, body);
      const out = Buffer.from(w.finish());
      out.writeInt32BE(out.length - 4, 0);
      return out;
    }),
  );
}

/** A connection that writes its requests in one write and collects the answers' frames in order. */
async function pipeline(server: ServerHandle): Promise<{ socket: Socket; answers: (count: number) => Promise<Buffer[]> }> {
  const socket = netConnect({ port: server.port, host: '127.0.0.1' });
  await once(socket, 'connect');
  cleanups.push(() => void socket.destroy());
  const got: Buffer[] = [];
  let buffered = Buffer.alloc(0);
  let wake = (): void => {};
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0)) {
      got.push(buffered.subarray(4, 4 + buffered.readInt32BE(0)));
      buffered = buffered.subarray(4 + buffered.readInt32BE(0));
    }
    wake();
  });
  return {
    socket,
    answers: async (count) => {
      while (got.length < count) await new Promise<void>((resolve) => (wake = resolve));
      return got;
    },
  };
}

const correlationIds = (answers: Buffer[]) => answers.map((a) => a.readInt32BE(0));
const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

const seqsOf = (server: ServerHandle, clientId: string) => server.faults.requests().filter((e) => e.clientId === clientId).map((e) => e.seq);

describe('fairness between connections', () => {
  it("answers another connection's request before the last of 500 pipelined ApiVersions of one client", async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const pipeliner = await pipeline(server);
    const other = await connect(server);
    const readsBefore = server.connections.frameReads!;
    // All 500 in one write (9.5 KB), so the server reads them together.
    pipeliner.socket.write(frames(API_VERSIONS, 0, {}, 500, 'pipeliner'));
    while (server.connections.frameReads! === readsBefore) await nextTurn();
    const answered = await other.send(API_VERSIONS, 0, { clientSoftwareName: '', clientSoftwareVersion: '' }, 'other');
    expect(answered.errorCode).toBe(ErrorCode.NONE);
    expect(correlationIds(await pipeliner.answers(500))).toEqual(oneToN(500));

    // Failed before: the 500 were answered in one go, the other connection's request after them.
    const [otherSeq] = seqsOf(server, 'other');
    const pipelined = seqsOf(server, 'pipeliner');
    expect(pipelined).toHaveLength(500);
    expect(otherSeq).toBeLessThan(Math.max(...pipelined));
    expect(pipelined.filter((s) => s < otherSeq!).length).toBeGreaterThanOrEqual(ANSWERED_IN_A_ROW);
  });

  it('serves a client that does not read its answers no further request until it reads, then answers every one in order', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'auto.create.topics.enable': false } });
    // Metadata of every topic answers about 50 KB each: 1000 of them are far more than the kernel's socket buffers hold.
    for (let i = 0; i < 200; i++) server.broker.topics.create(`fairness-${String(i).padStart(3, '0')}-${'t'.repeat(200)}`, 1);
    const slow = await pipeline(server);
    slow.socket.pause();
    const first = Math.max(0, ...server.faults.requests().map((e) => e.seq));
    slow.socket.write(frames(METADATA, 8, allTopics, 1000, 'slow-reader'));
    const served = () => Math.max(first, ...server.faults.requests().map((e) => e.seq)) - first;
    while (server.connections.waitingForDrain === 0 && served() < 1000) await nextTurn();

    // Failed before: all 1000 were answered into the socket's buffer (about 50 MB held for a client
    // that reads nothing), and there was no waiting for a drain.
    expect(server.connections.waitingForDrain).toBe(1);
    const servedWhileUnread = served();
    expect(servedWhileUnread).toBeLessThan(1000);
    // Another connection is served meanwhile.
    expect((await (await connect(server)).send(API_VERSIONS, 0, { clientSoftwareName: '', clientSoftwareVersion: '' }, 'other')).errorCode).toBe(ErrorCode.NONE);

    slow.socket.resume();
    const responses = await slow.answers(1000);
    expect(correlationIds(responses)).toEqual(oneToN(1000));
    const topicsOf = (frame: Buffer) => (API_CODECS[METADATA].response.decode(new Reader(frame.subarray(4)), 8) as { topics: unknown[] }).topics.length;
    // The 200 topics in every answer (no group used: no `__consumer_offsets` yet).
    expect(new Set(responses.map(topicsOf))).toEqual(new Set([200]));
    expect(server.connections.waitingForDrain).toBe(0);
  });
});
