/**
 * A group known only by its committed offsets, as the admin API describes it: the Empty simple
 * group of generation 0 that Kafka's OffsetCommit makes, and its replay of the offsets makes again
 * after a restart (adversarial trial 27: generation 0 before a restart, -1 after).
 */
import { afterEach, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { createTopics, offsetCommit, topic } from '../support/big-requests.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { describeGroup } from '../../src/admin/groups.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('describes a group known only by its offsets as the Empty simple group of generation 0, before and after a restart', async () => {
  const { server, close, dataDir } = await startClosableServer(cleanups);
  const client = await RawClient.connect(server.port);
  cleanups.push(() => client.close());
  expect((await client.send(19, 7, createTopics([topic('simple-t', 1)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
  const committed = await client.send(8, 8, offsetCommit('simple', [{ name: 'simple-t', partitions: [{ partitionIndex: 0, committedOffset: 4n, committedLeaderEpoch: -1, committedMetadata: '' }] }]));
  expect(committed.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
  const header = (g: ReturnType<typeof describeGroup>) => g && { type: g.type, state: g.state, protocolType: g.protocolType, protocol: g.protocol, generationId: g.generationId, leaderId: g.leaderId, members: g.members, offsets: g.offsets.map((o) => [o.topic, o.partition, o.committedOffset]) };
  const expected = { type: 'classic', state: 'Empty', protocolType: '', protocol: null, generationId: 0, leaderId: null, members: [], offsets: [['simple-t', 0, 4]] };
  expect(header(describeGroup(server.broker, 'simple'))).toEqual(expected);
  client.close();
  await close();
  const { server: restarted } = await startClosableServer(cleanups, { dataDir });
  expect(header(describeGroup(restarted.broker, 'simple'))).toEqual(expected);
});
