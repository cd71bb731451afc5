/**
 * An API that reads its responses' error codes itself for the request log (`ApiDefinition.errorCodes`,
 * issue #16) finds exactly what the log's generic walk finds (`responseErrors`): same codes, same
 * order, each once, at every version it serves; and it leaves a response too large to read in one
 * go to the walk in slices.
 */
import { describe, expect, it } from 'vitest';
import { API_HANDLERS } from '../../src/apis/registry.js';
import type { ApiDefinition } from '../../src/apis/types.js';
import { API_CODECS, type ApiKeyWithCodec } from '../../src/protocol/messages/index.js';
import { ELEMENTS_PER_SLICE, Reader, Writer } from '../../src/protocol/primitives.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { RequestLog, responseErrors } from '../../src/faults/request-log.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const codec = (key: number) => API_CODECS[key as ApiKeyWithCodec] as any;

/** `response` as a client decodes it at `version` (the fields of that version, nothing else). */
function wire(key: number, version: number, response: unknown): any {
  const w = new Writer();
  codec(key).response.encode(w, version, response);
  return codec(key).response.decode(new Reader(Buffer.from(w.finish())), version);
}

/** An OffsetCommit answer: topics of partitions with the given codes. */
function offsetCommitResponse(codes: number[][]): any {
  return {
    throttleTimeMs: 0,
    topics: codes.map((partitions, t) => ({ name: `t${t}`, topicId: 'AAECAwQFBgcICQoLDA0ODw', partitions: partitions.map((errorCode, p) => ({ partitionIndex: p, errorCode })) })),
  };
}

const CASES: number[][][] = [
  [],
  [[]],
  [[0]],
  [[0, 0], [0]],
  [[ErrorCode.OFFSET_METADATA_TOO_LARGE]],
  [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.OFFSET_METADATA_TOO_LARGE], [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 0, ErrorCode.NOT_COORDINATOR]],
  [[ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_COORDINATOR], [ErrorCode.NOT_COORDINATOR]],
];

describe('APIs reading their own error codes', () => {
  const readers = [...API_HANDLERS].filter(([, a]) => a.errorCodes !== undefined) as Array<[number, ApiDefinition]>;

  it('OffsetCommit is one of them', () => {
    expect(readers.map(([key]) => key)).toContain(8);
  });

  it('OffsetCommit: the codes the walk finds, in its order, at every version served', () => {
    const api = API_HANDLERS.get(8)!;
    for (let version = api.minVersion; version <= api.maxVersion; version++) {
      for (const codes of CASES) {
        const response = wire(8, version, offsetCommitResponse(codes));
        expect(api.errorCodes!(response)).toEqual(responseErrors(response));
      }
    }
    expect(api.errorCodes!(offsetCommitResponse([[0, 39, 27, 39, 0], [27, 15]]))).toEqual([39, 27, 15]);
  });

  it('every such API agrees with the walk on its error response at every version', () => {
    for (const [key, api] of readers) {
      for (let version = api.minVersion; version <= api.maxVersion; version++) {
        const request = codec(key).request[`default${api.name}Request`]();
        for (const errorCode of [ErrorCode.NONE, ErrorCode.NOT_COORDINATOR]) {
          const response = wire(key, version, api.errorResponse(request, version, errorCode));
          expect(api.errorCodes!(response), `${api.name} v${version}`).toEqual(responseErrors(response));
        }
      }
    }
  });

  it('OffsetCommit leaves a response of more than ELEMENTS_PER_SLICE partitions to the walk in slices, with the same result', async () => {
    const api = API_HANDLERS.get(8)!;
    const codes = [Array.from({ length: ELEMENTS_PER_SLICE }, () => 0), [0, ErrorCode.NOT_COORDINATOR]];
    const big = offsetCommitResponse(codes);
    expect(api.errorCodes!(big)).toBeNull();
    const entry = new RequestLog(2).record({ timeMs: 0, api: 'OffsetCommit', apiKey: 8, version: 8, correlationId: 1, clientId: 'c', connectionId: 'c1', brokerId: 1, principal: 'User:ANONYMOUS', groups: ['g'], memberId: null, topics: ['t0', 't1'], transactionalId: null });
    const walking = entry.setResponseInSlices(big, api.errorCodes as (r: unknown) => readonly number[] | null);
    if (walking !== null) await walking;
    expect([entry.error, entry.errors]).toEqual(['NOT_COORDINATOR', ['NOT_COORDINATOR']]);
  });

  it('a request log entry takes the codes the API read', () => {
    const api = API_HANDLERS.get(8)!;
    const entry = new RequestLog(2).record({ timeMs: 0, api: 'OffsetCommit', apiKey: 8, version: 8, correlationId: 1, clientId: 'c', connectionId: 'c1', brokerId: 1, principal: 'User:ANONYMOUS', groups: ['g'], memberId: null, topics: ['t0'], transactionalId: null });
    expect(entry.setResponseInSlices(offsetCommitResponse([[0, ErrorCode.OFFSET_METADATA_TOO_LARGE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]), api.errorCodes as (r: unknown) => readonly number[] | null)).toBeNull();
    expect([entry.error, entry.errors]).toEqual(['OFFSET_METADATA_TOO_LARGE', ['OFFSET_METADATA_TOO_LARGE', 'UNKNOWN_TOPIC_OR_PARTITION']]);
  });
});
