/**
 * `GET /metrics` is generated as the socket reads it (adversarial trial 13: groups committed to a
 * 5,000-partition topic made one scrape 1.57 GB, all held until sent). Real server, real HTTP: a
 * scrape of many megabytes never has more than a bounded number of bytes waiting in the server
 * (the stream's buffer and the response's), a Kafka request on another connection is answered
 * while a reader holds the scrape still, and a reader gone mid-scrape ends the generation.
 * The server's stream is the one fastify pipes into the response, observed (not replaced) by
 * wrapping Node's `Readable.prototype.pipe` for the test; how far the generation got is the
 * number of groups whose offsets src/admin/group-series.ts has read (the console's periodic look
 * at the groups reads them too, from elsewhere, and is not counted).
 */
import { request, ServerResponse, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { createTopics, nextTurn, offsetCommit, topic } from '../support/big-requests.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ServerHandle } from '../../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PARTITIONS = 1000;
const GROUPS = 300;
/** Bytes the server may hold for one scrape: the stream's highWaterMark (16 KiB) and a chunk of 1,000 lines, twice, with room. */
const HELD_BOUND = 512 * 1024;

/** A server with `GROUPS` groups each committed to partition 0 of a `PARTITIONS`-partition topic: 2 x 300,000 per-partition series (about 45 MB). */
async function serverWithWideGroups(): Promise<{ server: ServerHandle; kafka: RawClient }> {
  const { server } = await startClosableServer(cleanups, { inMemory: true, adminPort: 0 });
  const kafka = await RawClient.connect(server.port);
  cleanups.push(() => kafka.close());
  expect((await kafka.send(19, 7, createTopics([topic('wide', PARTITIONS)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
  for (let i = 0; i < GROUPS; i++) {
    const res = await kafka.send(8, 8, offsetCommit(`group-${i}`, [{ name: 'wide', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }]));
    expect(res.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
  }
  return { server, kafka };
}

/** What the server holds for the scrapes it streams: the most bytes in a stream's buffer plus its response's, and the bytes generated. */
interface Observed {
  streams: Readable[];
  maxHeld: number;
  generated: number;
}

/** Watches every stream piped into an HTTP response from now on (restored after the test). */
function observeResponseStreams(): Observed {
  const observed: Observed = { streams: [], maxHeld: 0, generated: 0 };
  const pipe = Readable.prototype.pipe;
  Readable.prototype.pipe = function <T extends NodeJS.WritableStream>(this: Readable, dest: T, options?: { end?: boolean }): T {
    if (dest instanceof ServerResponse) {
      const source = this;
      const res: ServerResponse = dest;
      observed.streams.push(source);
      const push = source.push.bind(source);
      source.push = (chunk: unknown, encoding?: BufferEncoding) => {
        if (chunk !== null) observed.generated += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Buffer).length;
        const more = push(chunk, encoding);
        observed.maxHeld = Math.max(observed.maxHeld, source.readableLength + res.writableLength);
        return more;
      };
    }
    return pipe.call(this, dest, options) as T;
  };
  cleanups.push(() => {
    Readable.prototype.pipe = pipe;
  });
  return observed;
}

/** Counts the reads of a group's offsets made by the per-group series' writer (src/admin/group-series.ts). */
function seriesReads(server: ServerHandle): { calls: number } {
  const state = { calls: 0 };
  const offsets = server.broker.offsets;
  const original = offsets.offsetsOf.bind(offsets);
  offsets.offsetsOf = (...args: Parameters<typeof original>) => {
    if (new Error().stack!.includes('group-series')) state.calls++;
    return original(...args);
  };
  return state;
}

/** GET /metrics, the response handed over at its first bytes (paused: nothing more is read until resumed). */
function startScrape(server: ServerHandle): Promise<{ res: IncomingMessage; first: Buffer; abort: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.admin!.url}/metrics`, (res) => {
      expect(res.statusCode).toBe(200);
      res.once('data', (first: Buffer) => {
        res.pause();
        resolve({ res, first, abort: () => req.destroy() });
      });
    });
    req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
    req.end();
  });
}

function rest(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.resume();
  });
}

const apiVersions = async (kafka: RawClient): Promise<number> => (await kafka.send(18, 3, { clientSoftwareName: 'metrics-stream', clientSoftwareVersion: '1' })).errorCode;

describe('GET /metrics is generated as the socket reads it', () => {
  it('a 300,000 x 2 series scrape: at most 512 KiB held at once, and Kafka answered while the reader holds it still', async () => {
    const { server, kafka } = await serverWithWideGroups();
    const observed = observeResponseStreams();
    const reads = seriesReads(server);
    const { res, first } = await startScrape(server);
    let ended = false;
    res.once('end', () => (ended = true));

    // The reader reads nothing more: Kafka requests on another connection are answered meanwhile.
    for (let i = 0; i < 20; i++) expect(await apiVersions(kafka)).toBe(ErrorCode.NONE);
    expect(ended).toBe(false);
    // The generation waits for the reader: not even the first metric's groups are all written
    // (what the kernel's socket buffers took, a few MB, is about a hundred groups of 90 KB).
    expect(reads.calls).toBeGreaterThan(0);
    expect(reads.calls).toBeLessThan(GROUPS);

    const text = first.toString('utf8') + (await rest(res));
    const lines = text.split('\n');
    expect(lines.filter((l) => l.startsWith('kafka_consumergroup_current_offset{'))).toHaveLength(GROUPS * PARTITIONS);
    expect(lines.filter((l) => l.startsWith('kafka_consumergroup_lag{'))).toHaveLength(GROUPS * PARTITIONS);
    expect(lines).toContain('kafka_consumergroup_current_offset{consumergroup="group-299",topic="wide",partition="0"} 0');
    expect(lines).toContain('kafka_consumergroup_lag{consumergroup="group-299",topic="wide",partition="999"} -1');
    expect(lines).toContain('kafka_consumergroup_members{consumergroup="group-0"} 0');
    expect(text.endsWith('\n') && !text.endsWith('\n\n')).toBe(true);
    // Much larger than what was ever held at once.
    expect(observed.streams).toHaveLength(1);
    expect(observed.generated).toBe(Buffer.byteLength(text));
    expect(observed.generated).toBeGreaterThan(20 * HELD_BOUND);
    expect(observed.maxHeld).toBeGreaterThan(0);
    expect(observed.maxHeld).toBeLessThanOrEqual(HELD_BOUND);
  });

  it('a reader gone mid-scrape ends the generation: nothing more is generated once the stream is closed', async () => {
    const { server, kafka } = await serverWithWideGroups();
    const observed = observeResponseStreams();
    const reads = seriesReads(server);
    const { abort } = await startScrape(server);
    const stream = observed.streams[0]!;
    const closed = new Promise<void>((resolve) => stream.once('close', resolve));
    abort();
    // Closed once the generator has returned (Readable.from closes after the iterator's return()).
    await closed;
    expect(stream.destroyed).toBe(true);
    const generatedAtClose = observed.generated;
    const readsAtClose = reads.calls;
    for (let i = 0; i < 20; i++) {
      expect(await apiVersions(kafka)).toBe(ErrorCode.NONE);
      await nextTurn();
    }
    expect(observed.generated).toBe(generatedAtClose);
    expect(reads.calls).toBe(readsAtClose);
    expect(readsAtClose).toBeLessThan(GROUPS);
    // Well short of the 2 x 300,000 series of about 70 bytes (what the sockets' kernel buffers took is at most a few MB).
    expect(generatedAtClose).toBeLessThan(20 * 1024 * 1024);
  });
});
