/**
 * Requests a fault rule holds (`delay`, `throttle`) and the connection they came on. A stopped
 * broker's queued requests die with it: a Produce a `delay` rule held on a broker that stops is
 * never applied (adversarial trial, session 30: the client's retry on the new leader was applied,
 * then the held request 5 s later, the record twice), and the hold ends at the stop; one whose
 * client hung up is still handled at the end of the delay, as Kafka handles a request it read
 * before its client went away. And holding requests adds nothing to the connection that stays
 * after them: a throttle rule on every request of a long-lived connection added a socket listener
 * each time (Node's MaxListenersExceededWarning after ten).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { until } from '../support/until.js';
import { batchOf, createTopic } from '../support/raw-transactions.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultPartitionProduceData, defaultProduceRequest } from '../../src/protocol/messages/ProduceRequest.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A Produce of one record to partition 0 of `topic` (acks -1), not awaited. */
function produceOne(client: RawClient, topic: string) {
  return client.send(0, 9, {
    ...defaultProduceRequest(), acks: -1, timeoutMs: 30_000,
    topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ ...defaultPartitionProduceData(), index: 0, records: batchOf({ producerId: -1n, producerEpoch: -1, baseSequence: 0, count: 1, transactional: false }) }] }],
  });
}

describe('requests held by fault rules', () => {
  it('a Produce held by a delay on a broker that stops is never applied; one whose client hung up is', async () => {
    const { server } = await startClosableServer(cleanups, { brokers: 3 }, 'kmc-delay-stop-');
    const admin = await RawClient.connectCleaned(server.port, cleanups);
    await createTopic(admin, 'held');
    const leader = server.cluster.leaderOf('held', 0);
    const partition = server.broker.topics.get('held')!.partition(0)!;
    // An hour: only the stop can end it within the test.
    const rule = server.faults.add({ match: { api: 'Produce', topic: 'held', brokerId: leader }, action: { type: 'delay', ms: 3_600_000 } });
    const client = await RawClient.connectCleaned(server.ports.get(leader)!, cleanups);
    void produceOne(client, 'held').catch(() => undefined);
    await rule.waitFired(1, { timeoutMs: 20_000 });
    await server.cluster.stopBroker(leader);
    const held = () => server.faults.requests({ api: 'Produce' }).find((e) => e.faults.includes(rule.id));
    await until(() => held()?.outcome === 'closed', 'the held Produce to end with its broker');
    expect(partition.logEndOffset).toBe(0n);
    expect(held()?.handled).toBe(false);
    await server.cluster.startBroker(leader);

    // A client that hangs up: its request is handled at the end of the delay.
    const short = server.faults.add({ match: { api: 'Produce', topic: 'held' }, action: { type: 'delay', ms: 200 } });
    const leaver = await RawClient.connectCleaned(server.ports.get(server.cluster.leaderOf('held', 0))!, cleanups);
    void produceOne(leaver, 'held').catch(() => undefined);
    await short.waitFired(1, { timeoutMs: 20_000 });
    leaver.socket.destroy();
    await until(() => partition.logEndOffset === 1n, 'the Produce of the client that hung up to be applied');
    // The request log says it was handled though its answer went nowhere.
    await until(() => server.faults.requests({ api: 'Produce' }).some((e) => e.faults.includes(short.id) && e.outcome !== 'pending'), 'its log entry to settle');
    expect(server.faults.requests({ api: 'Produce' }).filter((e) => e.faults.includes(short.id)).map((e) => [e.handled, e.outcome])).toEqual([[true, 'closed']]);
  });

  it('throttled and delayed requests on one long-lived connection leave no listener behind', async () => {
    const { server } = await startClosableServer(cleanups, {}, 'kmc-held-listeners-');
    const client = await RawClient.connectCleaned(server.port, cleanups);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    cleanups.push(() => void process.off('warning', onWarning));
    server.faults.add({ match: { api: 'ApiVersions' }, action: { type: 'throttle', ms: 1 }, times: 15 });
    server.faults.add({ match: { api: 'ApiVersions' }, action: { type: 'delay', ms: 1 }, times: 15 });
    for (let i = 0; i < 30; i++) {
      const res = await client.send(18, 3, { clientSoftwareName: 'held', clientSoftwareVersion: '1' });
      expect(res.errorCode).toBe(0);
    }
    // A warning is emitted on the next turn after the listener that exceeds the limit.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([]);
  });
});
