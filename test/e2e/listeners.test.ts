/**
 * Several listeners at once (`listeners`, `advertised.listeners`, `listener.security.protocol.map`):
 * each answers Metadata, FindCoordinator and DescribeCluster with its own addresses, for every
 * simulated broker, and a kafkajs client on either listener produces, consumes in a group and commits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { kafkaClient, produceConsumeCommit } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TWO_LISTENERS = {
  listeners: 'INTERNAL://127.0.0.1:0,EXTERNAL://localhost:0',
  'listener.security.protocol.map': 'INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT',
  'inter.broker.listener.name': 'INTERNAL',
};

async function describeThrough(port: number, host: string) {
  const c = await RawClient.connect(port, host);
  try {
    const md = await c.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false, includeClusterAuthorizedOperations: false });
    const fc = await c.send(10, 4, { key: '', keyType: 0, coordinatorKeys: ['g-listeners'] });
    const dc = await c.send(60, 1, { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers: false });
    return {
      metadata: md.brokers.map((b) => `${b.nodeId}@${b.host}:${b.port}`),
      coordinator: `${fc.coordinators[0]!.nodeId}@${fc.coordinators[0]!.host}:${fc.coordinators[0]!.port}`,
      cluster: dc.brokers.map((b) => `${b.brokerId}@${b.host}:${b.port}`),
    };
  } finally {
    c.close();
  }
}

describe('listeners', () => {
  it('two listeners of two brokers: each listener advertises its own addresses', async () => {
    const server = await startTestServer({ config: TWO_LISTENERS, brokers: 2 });
    cleanups.push(() => server.stop());
    expect(server.listeners.map((l) => [l.name, l.securityProtocol])).toEqual([['INTERNAL', 'PLAINTEXT'], ['EXTERNAL', 'PLAINTEXT']]);
    const [internal, external] = server.listeners;
    expect(internal!.bootstrap).toBe(`127.0.0.1:${internal!.port}`);
    expect(external!.bootstrap).toBe(`localhost:${external!.port}`);
    expect(server.bootstrap).toBe(internal!.bootstrap);

    const viaInternal = await describeThrough(internal!.port, '127.0.0.1');
    const viaExternal = await describeThrough(external!.port, 'localhost');
    const coordinator = server.cluster.coordinatorOf('g-listeners');
    // Broker 2's ports are its own free ones: read them from what the first listener says about it.
    const internal2 = viaInternal.metadata[1]!.split(':')[1];
    expect(viaInternal.metadata).toEqual([`1@127.0.0.1:${internal!.port}`, `2@127.0.0.1:${internal2}`]);
    expect(viaInternal.cluster).toEqual(viaInternal.metadata);
    expect(viaExternal.metadata).toHaveLength(2);
    expect(viaExternal.metadata[0]).toBe(`1@localhost:${external!.port}`);
    expect(viaExternal.metadata[1]).toMatch(/^2@localhost:\d+$/);
    expect(viaExternal.metadata[1]).not.toBe(`2@localhost:${internal2}`);
    expect(viaExternal.cluster).toEqual(viaExternal.metadata);
    expect(viaInternal.coordinator).toBe(viaInternal.metadata[coordinator - 1]);
    expect(viaExternal.coordinator).toBe(viaExternal.metadata[coordinator - 1]);
  });

  it('advertised.listeners names the address each listener advertises; kafkajs works through both', async () => {
    // Free ports first: an advertised port is taken as given.
    const probe = await startTestServer({ config: TWO_LISTENERS });
    const ports = probe.listeners.map((l) => l.port);
    await probe.stop();
    const real = await startTestServer({
      config: { ...TWO_LISTENERS, listeners: `INTERNAL://127.0.0.1:${ports[0]},EXTERNAL://localhost:${ports[1]}`, 'advertised.listeners': `EXTERNAL://127.0.0.1:${ports[1]}` },
      port: undefined,
    });
    cleanups.push(() => real.stop());
    expect(real.listeners.map((l) => l.bootstrap)).toEqual([`127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`]);

    for (const [i, listener] of real.listeners.entries()) {
      const topic = `listeners-${i}`;
      const kafka = kafkaClient(listener.bootstrap, `listeners-${listener.name}`);
      const committed = () => real.broker.offsets.fetch(`g-${topic}`, topic, 0)?.committedOffset;
      expect(await produceConsumeCommit(kafka, topic, `g-${topic}`, ['a', 'b', 'c'], committed, cleanups)).toEqual(['a', 'b', 'c']);
    }
  });
});
