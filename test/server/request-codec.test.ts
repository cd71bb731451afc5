/**
 * Responses encoded through the reused writer (src/server/request-codec.ts `encodeResponse`) are
 * buffers of their own: a later response never writes over an earlier one, and a response larger
 * than the writer's buffer comes out whole, with the bytes a fresh writer gives
 * (`encodeResponseInSlices`, which does not reuse one).
 */
import { describe, expect, it } from 'vitest';
import { encodeResponse, encodeResponseInSlices, encodeResponseParts, type RequestHeader } from '../../src/server/request-codec.js';
import type { FetchResponse } from '../../src/protocol/messages/FetchResponse.js';
import { defaultPartitionData } from '../../src/protocol/messages/FetchResponse.js';
import { BYTES_PER_SLICE, BY_REFERENCE_MIN_BYTES } from '../../src/protocol/primitives.js';
import { joinBuffers } from '../../src/util/join-buffers.js';
import { runNow } from '../../src/util/slices.js';
import type { OffsetCommitResponse } from '../../src/protocol/messages/OffsetCommitResponse.js';

const header = (correlationId: number, apiVersion: number): RequestHeader => ({ apiKey: 8, apiVersion, correlationId, clientId: 'c' });
const commitResponse = (partitions: number, errorCode: number): OffsetCommitResponse => ({
  throttleTimeMs: 0,
  topics: [{ name: 'topic', topicId: '', partitions: Array.from({ length: partitions }, (_, partitionIndex) => ({ partitionIndex, errorCode })) }],
});

describe('encodeResponse', () => {
  it('gives each response its own bytes, small and large (past the reused buffer) alike, as a fresh writer writes them', () => {
    const cases: Array<[RequestHeader, OffsetCommitResponse]> = [
      [header(1, 8), commitResponse(1, 0)],
      [header(2, 7), commitResponse(2, 27)],
      [header(3, 8), commitResponse(20_000, 0)],
      [header(4, 8), commitResponse(1, 25)],
      [header(5, 2), commitResponse(3_000, 0)],
      [header(6, 8), commitResponse(1, 0)],
    ];
    const encoded = cases.map(([h, body]) => encodeResponse(h, body));
    cases.forEach(([h, body], i) => {
      const expected = joinBuffers(runNow(encodeResponseInSlices(h, body)));
      expect(encoded[i]!.equals(expected)).toBe(true);
      expect(encoded[i]!.readInt32BE(0)).toBe(encoded[i]!.length - 4);
      expect(encoded[i]!.readInt32BE(4)).toBe(h.correlationId);
    });
    expect(encoded[2]!.length).toBeGreaterThan(16 * 1024 * 4);
  });
});

describe('encodeResponseInSlices', () => {
  it('hands a large response on in parts of about a megabyte, begun between slices, that join to the bytes encodeResponse gives', () => {
    const h = header(9, 8);
    const body = commitResponse(400_000, 0);
    const parts = runNow(encodeResponseInSlices(h, body));
    const joined = Buffer.concat(parts);
    expect(joined.equals(encodeResponse(h, body))).toBe(true);
    expect(joined.readInt32BE(0)).toBe(joined.length - 4);
    expect(joined.length).toBeGreaterThan(2_400_000);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    // Each part: the megabyte it reached plus at most the rest of one slice (never the whole frame).
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(1024 * 1024 + BYTES_PER_SLICE + 64);
    // A small one is one part.
    expect(runNow(encodeResponseInSlices(h, commitResponse(3, 0))).length).toBe(1);
  });
});

describe('encodeResponseParts', () => {
  const fetchResponse = (records: Buffer[]): FetchResponse => ({
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: [{ topic: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: records.map((r, partitionIndex) => ({ ...defaultPartitionData(), partitionIndex, records: r })) }],
    nodeEndpoints: [],
  });

  it('gives the bytes encodeResponse gives, large byte fields as the very buffers (no copy), small ones copied; flexible and not', () => {
    const big = Buffer.alloc(BY_REFERENCE_MIN_BYTES, 7);
    const bigger = Buffer.alloc(BY_REFERENCE_MIN_BYTES * 3, 9);
    const small = Buffer.alloc(100, 1);
    for (const version of [11, 12, 17]) {
      const h: RequestHeader = { apiKey: 1, apiVersion: version, correlationId: 42, clientId: 'c' };
      const body = fetchResponse([big, small, bigger]);
      const parts = encodeResponseParts(h, body);
      expect(Array.isArray(parts)).toBe(true);
      const list = parts as Buffer[];
      expect(list.filter((p) => p === big || p === bigger)).toEqual([big, bigger]);
      expect(Buffer.concat(list).equals(encodeResponse(h, body))).toBe(true);
      expect(Buffer.concat(list).readInt32BE(0)).toBe(list.reduce((n, p) => n + p.length, 0) - 4);
    }
    const none = encodeResponseParts({ apiKey: 1, apiVersion: 12, correlationId: 1, clientId: 'c' }, fetchResponse([small]));
    expect(Buffer.isBuffer(none)).toBe(true);
  });
});

describe('joinBuffers', () => {
  it('spans views lying end to end in one buffer without a copy, and copies others', () => {
    const block = Buffer.alloc(10, 'abcdefghij'); // its own memory, not Node's shared pool
    const joined = joinBuffers([block.subarray(0, 3), block.subarray(3, 4), block.subarray(4, 9)]);
    expect(joined.toString()).toBe('abcdefghi');
    expect([joined.buffer, joined.byteOffset]).toEqual([block.buffer, block.byteOffset]);
    const copied = joinBuffers([block.subarray(0, 3), block.subarray(4, 6)]);
    expect(copied.toString()).toBe('abcef');
    expect(copied.buffer).not.toBe(block.buffer);
    expect(joinBuffers([Buffer.from('x'), Buffer.from('y')]).toString()).toBe('xy');
    expect(joinBuffers([]).length).toBe(0);
  });
});
