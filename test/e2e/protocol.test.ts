import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { Reader } from '../../src/protocol/primitives.js';
import * as ApiVersionsResponse from '../../src/protocol/messages/ApiVersionsResponse.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const MAX_FRAME = 4096;

describe('protocol edge cases (test 5)', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ config: { 'socket.request.max.bytes': MAX_FRAME } });
  });
  afterAll(async () => server.stop());

  it.each([0, 1, 2, 3, 4])('answers ApiVersions v%i with the ranges of the APIs it serves', async (version) => {
    const client = await RawClient.connect(server.port);
    const res = await client.send(18, version, { clientSoftwareName: 'raw-test', clientSoftwareVersion: '1.0' });
    client.close();
    expect(res.errorCode).toBe(ErrorCode.NONE);
    const byKey = new Map(res.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
    expect(byKey.get(18)).toEqual([0, 4]);
    expect(byKey.get(0)).toEqual([0, 13]); // Produce advertised from v0, as Kafka 4.3
    expect(byKey.get(8)).toEqual([2, 10]);
    expect(byKey.get(11)).toEqual([0, 9]);
  });

  it('answers a too-new ApiVersions with the v0 body, UNSUPPORTED_VERSION and its own range', async () => {
    const client = await RawClient.connect(server.port);
    // v7 does not exist: the header is v2 (flexible), the body is unknown and skipped.
    const body = await client.sendRawRequest(18, 7, Buffer.from([0x00, 0x02, 0x61, 0x02, 0x31, 0x00]));
    const res = ApiVersionsResponse.decode(new Reader(body), 0);
    expect(res.errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(res.apiKeys).toEqual([{ apiKey: 18, minVersion: 0, maxVersion: 4 }]);
    // The connection stays usable: the client retries at a version we serve.
    const retry = await client.send(18, 3, { clientSoftwareName: 'raw-test', clientSoftwareVersion: '1.0' });
    expect(retry.errorCode).toBe(ErrorCode.NONE);
    client.close();
  });

  it('answers ApiVersions of a negative version as one too new, as Kafka 4.3.1 (adversarial trial, session 33: it closed the connection)', async () => {
    const client = await RawClient.connect(server.port);
    for (const version of [-1, -32768]) {
      const res = ApiVersionsResponse.decode(new Reader(await client.sendRawRequest(18, version, Buffer.alloc(0))), 0);
      expect([res.errorCode, res.apiKeys]).toEqual([ErrorCode.UNSUPPORTED_VERSION, [{ apiKey: 18, minVersion: 0, maxVersion: 4 }]]);
    }
    expect((await client.send(18, 3, { clientSoftwareName: 'raw-test', clientSoftwareVersion: '1.0' })).errorCode).toBe(ErrorCode.NONE);
    client.close();
  });

  it('answers INVALID_REQUEST to ApiVersions v3 with an invalid client software name', async () => {
    const client = await RawClient.connect(server.port);
    const res = await client.send(18, 3, { clientSoftwareName: '-bad name-', clientSoftwareVersion: '1.0' });
    client.close();
    expect(res.errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('closes the connection on a garbage frame and keeps serving others', async () => {
    const bad = await RawClient.connect(server.port);
    bad.writeRaw(Buffer.from([0, 0, 0, 6, 0x7f, 0x7f, 0xde, 0xad, 0xbe, 0xef]));
    await bad.waitClosed();
    expect(bad.closed).toBe(true);
    const good = await RawClient.connect(server.port);
    const res = await good.send(18, 2, { clientSoftwareName: '', clientSoftwareVersion: '' });
    expect(res.errorCode).toBe(ErrorCode.NONE);
    good.close();
  });

  it('closes the connection on a frame over socket.request.max.bytes and keeps serving others', async () => {
    const big = await RawClient.connect(server.port);
    const header = Buffer.alloc(4);
    header.writeInt32BE(MAX_FRAME + 1, 0);
    big.writeRaw(header);
    await big.waitClosed();
    expect(big.closed).toBe(true);
    const good = await RawClient.connect(server.port);
    const res = await good.send(10, 2, { key: 'g', keyType: 0, coordinatorKeys: [] });
    expect(res.errorCode).toBe(ErrorCode.NONE);
    expect(res.port).toBe(server.port);
    good.close();
  });

  it('FindCoordinator: an empty group id or transactional id has a coordinator (v3, v4+), as Kafka 4.3.1; an unknown key type has none', async () => {
    const client = await RawClient.connect(server.port);
    for (const keyType of [0, 1]) {
      const one = await client.send(10, 3, { key: '', keyType, coordinatorKeys: [] });
      expect([one.errorCode, one.errorMessage, one.port]).toEqual([ErrorCode.NONE, 'NONE', server.port]);
      const batched = await client.send(10, 4, { key: '', keyType, coordinatorKeys: ['', 'k'] });
      expect(batched.coordinators.map((c) => [c.key, c.errorCode, c.errorMessage, c.port])).toEqual([['', ErrorCode.NONE, '', server.port], ['k', ErrorCode.NONE, '', server.port]]);
    }
    const unknown = await client.send(10, 4, { key: '', keyType: 3, coordinatorKeys: [''] });
    expect(unknown.coordinators.map((c) => [c.errorCode, c.nodeId])).toEqual([[ErrorCode.INVALID_REQUEST, -1]]);
    client.close();
  });

  it('closes the connection on an unsupported version of a served API', async () => {
    const client = await RawClient.connect(server.port);
    // Produce v2 is advertised (as Kafka 4.3 does) but refused.
    client.writeRaw(Buffer.from([0, 0, 0, 14, 0, 0, 0, 2, 0, 0, 0, 1, 0, 2, 0x61, 0x62, 0, 0]));
    await client.waitClosed();
    expect(client.closed).toBe(true);
  });
});
