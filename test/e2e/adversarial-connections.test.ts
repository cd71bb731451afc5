/**
 * Connections closed by a request's failure give back what they held: the request memory of
 * `queued.max.request.bytes`. An acks=0 Produce refused by the authorizer closes its connection
 * (Kafka's way, no answer); each such close kept its frame's bytes out of the pool, so enough of
 * them stopped the server reading any connection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { connectSasl, plainJaas } from '../support/sasl-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const POOL_BYTES = 4096;

describe('request memory after a request closes its connection', () => {
  it('acks=0 Produces refused by the authorizer, many more than the pool holds: every byte goes back, the next connection is served', async () => {
    const server = await startTestServer({
      config: {
        listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
        'sasl.enabled.mechanisms': 'PLAIN',
        'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas({ admin: 'admin-secret', alice: 'alice-secret' }),
        'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        'super.users': 'User:admin',
        'connection.failed.authentication.delay.ms': 0,
        'socket.request.max.bytes': POOL_BYTES,
        'queued.max.request.bytes': POOL_BYTES,
      },
    });
    cleanups.push(() => server.stop());
    const connect = async (user: string) => {
      const c = await connectSasl(server.port, { mechanism: 'PLAIN', username: user, password: `${user}-secret` });
      cleanups.push(() => c.close());
      return c;
    };
    const admin = await connect('admin');
    const created = await admin.send(19, 5, { topics: [{ name: 'secret', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
    expect(created.topics.map((t) => t.errorCode)).toEqual([ErrorCode.NONE]);
    // Each frame holds ~1 KiB of the pool: 20 of them are five times the pool.
    const records = Buffer.alloc(1000);
    for (let i = 0; i < 20; i++) {
      const alice = await connect('alice');
      await expect(alice.send(0, 9, { transactionalId: null, acks: 0, timeoutMs: 1000, topicData: [{ name: 'secret', topicId: ZERO_UUID, partitionData: [{ index: 0, records }] }] } as never)).rejects.toThrow('connection closed before a response');
    }
    const after = await connect('admin');
    const md = await after.send(3, 12, { topics: [{ topicId: ZERO_UUID, name: 'secret' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(md.topics.map((t) => [t.name, t.errorCode])).toEqual([['secret', ErrorCode.NONE]]);
    expect(server.connections.waitingForMemory ?? 0).toBe(0);
  });
});
