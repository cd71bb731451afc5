/**
 * A muted connection (its request in flight, as Kafka's `Processor` mutes a channel) stops reading
 * its socket once its next request is buffered whole or MUTED_READ_BYTES of it are, on plain TCP
 * and on TLS listeners alike, and reads again once it is answered. Adversarial trial 13: behind a
 * Fetch waiting on the manual clock, a plain connection buffered 95 MiB of its next frame and a TLS
 * one every byte it was sent (630 MB), none of it counted by `queued.max.request.bytes`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerHandle } from '../../src/index.js';
import { MUTED_READ_BYTES } from '../../src/server/connection.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { FakeTime } from '../support/fake-time.js';
import { makeTestCerts, type TestCerts } from '../support/certs.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultFetchPartition, defaultFetchRequest, type FetchRequest } from '../../src/protocol/messages/FetchRequest.js';

let certs: TestCerts;
beforeAll(async () => {
  certs = await makeTestCerts();
});
afterAll(() => certs?.remove());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Fetch v11 of partition 0 from offset 0, waiting up to 60 s (on the manual clock: until a record comes). */
function longFetch(topic: string): FetchRequest {
  const req = defaultFetchRequest();
  req.maxWaitMs = 60_000;
  req.minBytes = 1;
  req.topics = [{ topic, topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }];
  return req;
}

const API_VERSIONS = { clientSoftwareName: 'muted-reads', clientSoftwareVersion: '1' };

/** How many muted connections the server does not read now, once it has answered a probe after `client`'s bytes. */
async function mutedUnreadAfterProbe(server: ServerHandle, probe: RawClient): Promise<number> {
  await probe.send(18, 3, API_VERSIONS);
  return server.connections.mutedUnread ?? 0;
}

async function check(server: ServerHandle, connect: () => Promise<RawClient>): Promise<void> {
  server.broker.topics.create('muted', 1);
  const client = await connect();
  const probe = await connect();
  cleanups.push(() => void client.socket.destroy(), () => void probe.socket.destroy());
  const fetched = client.send(1, 11, longFetch('muted'));
  await probe.send(18, 3, API_VERSIONS); // the Fetch is read and waits
  // The prefix of a 10 MiB frame and 1 MiB of its body: more than MUTED_READ_BYTES, less than the frame.
  const body = Buffer.alloc(1 << 20, 7);
  const prefix = Buffer.alloc(4);
  prefix.writeInt32BE(10 << 20);
  client.socket.write(Buffer.concat([prefix, body]));
  expect(body.length).toBeGreaterThan(2 * MUTED_READ_BYTES);
  // The server reads what arrives on each poll; a few probe round trips let it poll past the bound.
  let unread = 0;
  for (let i = 0; i < 50 && unread === 0; i++) unread = await mutedUnreadAfterProbe(server, probe);
  expect(unread).toBe(1);

  // A record ends the Fetch: the connection is answered, unmuted and read again (its next frame is
  // incomplete, so it is not muted again).
  const appended = server.broker.topics.get('muted')!.partition(0)!.appendProduced(
    encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: [{ key: null, value: Buffer.from('v') }] }),
  );
  if ('durable' in appended) await appended.durable;
  const answer = await fetched;
  expect(answer.responses[0]!.partitions[0]!.errorCode).toBe(0);
  expect(await mutedUnreadAfterProbe(server, probe)).toBe(0);
  // Closed while stopped: nothing stays counted.
  client.socket.destroy();
  await client.waitClosed();
  expect(await mutedUnreadAfterProbe(server, probe)).toBe(0);
}

describe('a muted connection stops reading its socket', () => {
  it('on a plain listener, once MUTED_READ_BYTES of its next frame are buffered', async () => {
    const { server } = await startClosableServer(cleanups, { time: new FakeTime(Date.now()) }, 'kmc-muted-');
    await check(server, () => RawClient.connect(server.port));
  });

  it('on a TLS listener too', async () => {
    const { server } = await startClosableServer(cleanups, {
      time: new FakeTime(Date.now()),
      config: { listeners: 'SSL://127.0.0.1:0', 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': certs.serverKeystorePath },
    }, 'kmc-muted-tls-');
    await check(server, () => RawClient.connectTls(server.port, { ca: [certs.caCert] }));
  });
});
