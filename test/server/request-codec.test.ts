/**
 * Responses encoded through the reused writer (src/server/request-codec.ts `encodeResponse`) are
 * buffers of their own: a later response never writes over an earlier one, and a response larger
 * than the writer's buffer comes out whole, with the bytes a fresh writer gives
 * (`encodeResponseInSlices`, which does not reuse one).
 */
import { describe, expect, it } from 'vitest';
import { encodeResponse, encodeResponseInSlices, type RequestHeader } from '../../src/server/request-codec.js';
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
      const expected = runNow(encodeResponseInSlices(h, body));
      expect(encoded[i]!.equals(expected)).toBe(true);
      expect(encoded[i]!.readInt32BE(0)).toBe(encoded[i]!.length - 4);
      expect(encoded[i]!.readInt32BE(4)).toBe(h.correlationId);
    });
    expect(encoded[2]!.length).toBeGreaterThan(16 * 1024 * 4);
  });
});
