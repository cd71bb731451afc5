/**
 * A full disk, end to end: the server process (`node dist/cli.js`, `mock.flush.policy=always`)
 * keeps its data directory on a small real tmpfs. Four committers commit; the disk fills: once the
 * zeros written ahead of the offsets log's batches are used up, every OffsetCommit is answered
 * NOT_COORDINATOR (16) per partition on a connection that stays open,
 * OffsetFetch returns only acknowledged offsets, a JoinGroup creating a group gets 16 and leaves no
 * member, Produce answers KAFKA_STORAGE_ERROR (56). Space
 * comes back: commits succeed again without a restart. SIGKILL and restart: every acknowledged
 * commit is there. (README, design notes: "Disk full and I/O errors".)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { RawClient } from '../support/raw-client.js';
import { startCli, kill, type CliServer } from '../support/cli-process.js';
import { canMountTmpfs, mountTmpfs, TMPFS_SKIP_REASON, type Tmpfs } from '../support/tmpfs.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';
import { defaultJoinGroupRequest } from '../../src/protocol/messages/JoinGroupRequest.js';
import { defaultMetadataRequest, defaultMetadataRequestTopic } from '../../src/protocol/messages/MetadataRequest.js';
import { defaultFindCoordinatorRequest } from '../../src/protocol/messages/FindCoordinatorRequest.js';
import { defaultDeleteTopicsRequest, defaultDeleteTopicState } from '../../src/protocol/messages/DeleteTopicsRequest.js';
import { readdirSync } from 'node:fs';

const TOPIC = 'disk-full';
const COMMITTERS = 4;
const groupOf = (i: number): string => `disk-full-group-${i}`;

/**
 * One OffsetCommit (v8) of `offset` for committer `i`'s group and partition; its error code. The
 * metadata makes each record larger than a page, so that no write fits in a page already allocated.
 */
async function commit(client: RawClient, i: number, offset: bigint): Promise<number> {
  const res = await client.send(8, 8, {
    ...defaultOffsetCommitRequest(),
    groupId: groupOf(i),
    topics: [{ name: TOPIC, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: i, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: 'm'.repeat(4096) }] }],
  });
  return res.topics[0]!.partitions[0]!.errorCode;
}

/** The committed offset of committer `i` (OffsetFetch v6). */
async function fetchCommitted(client: RawClient, i: number): Promise<bigint> {
  const res = await client.send(9, 6, { groupId: groupOf(i), topics: [{ name: TOPIC, partitionIndexes: [i] }], groups: [], requireStable: false });
  expect(res.errorCode).toBe(ErrorCode.NONE);
  return res.topics[0]!.partitions[0]!.committedOffset;
}

describe.skipIf(!canMountTmpfs)(`a full disk under the server process (${TMPFS_SKIP_REASON})`, () => {
  let fs: Tmpfs | null = null;
  const servers: CliServer[] = [];
  const clients: RawClient[] = [];
  afterAll(async () => {
    for (const c of clients) c.close();
    for (const s of servers) await kill(s, 'SIGKILL');
    fs?.unmount();
  });

  it('answers NOT_COORDINATOR and KAFKA_STORAGE_ERROR while full, serves again once space is back, loses no acknowledged commit', async () => {
    fs = mountTmpfs(8 << 20)!;
    const args = ['--port', '0', '--data-dir', `${fs.dir}/data`, '--config', 'mock.flush.policy=always', '--config', 'offsets.topic.num.partitions=4'];
    let server = await startCli(args);
    servers.push(server);
    const admin = await RawClient.connect(server.port);
    clients.push(admin);
    const created = await admin.send(19, 5, { ...defaultCreateTopicsRequest(), topics: [{ ...defaultCreatableTopic(), name: TOPIC, numPartitions: COMMITTERS, replicationFactor: 1 }, { ...defaultCreatableTopic(), name: 'disk-full-doomed', numPartitions: 1, replicationFactor: 1 }], timeoutMs: 5000 });
    expect(created.topics.map((t) => t.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);

    const committers = await Promise.all(Array.from({ length: COMMITTERS }, () => RawClient.connect(server.port)));
    clients.push(...committers);
    const acked = Array.from({ length: COMMITTERS }, () => 0n);
    for (let offset = 1n; offset <= 20n; offset++) {
      const codes = await Promise.all(committers.map((c, i) => commit(c, i, offset)));
      expect(codes).toEqual([0, 0, 0, 0]);
      acked.fill(offset);
    }

    // The disk fills up. Commits that fit in the zeros the offsets log wrote ahead of its batches
    // (storage/prepared-space.ts: as many bytes ahead as the segment holds, here 20 commits' worth)
    // still succeed; then every commit fails on its own, answered, on the same connections.
    fs.fill();
    let failedAt = 0;
    for (let round = 0; round < 60 && failedAt === 0; round++) {
      const offset = 100n + BigInt(round);
      const codes = await Promise.all(committers.map((c, i) => commit(c, i, offset)));
      codes.forEach((code, i) => {
        if (code === 0) acked[i] = offset;
        else expect(code).toBe(16);
      });
      if (codes.every((code) => code === 16)) failedAt = round + 1;
    }
    expect(failedAt).toBeGreaterThan(0);
    for (let round = 0; round < 5; round++) {
      const codes = await Promise.all(committers.map((c, i) => commit(c, i, 100n + BigInt(round))));
      expect(codes).toEqual([16, 16, 16, 16]);
    }
    for (let i = 0; i < COMMITTERS; i++) expect(await fetchCommitted(admin, i)).toBe(acked[i]);

    // A JoinGroup creating a group (a static member: no MEMBER_ID_REQUIRED round trip) needs the
    // group's first record: it gets the error and no member is left behind. (The long id makes the
    // record larger than a page, as the commits' metadata does; the disk is topped up first, as
    // the rolled-back commits gave pages back.)
    fs.fill();
    const newGroup = `disk-full-new-group-${'x'.repeat(4096)}`;
    const joined = await admin.send(11, 5, {
      ...defaultJoinGroupRequest(),
      groupId: newGroup,
      sessionTimeoutMs: 10000,
      rebalanceTimeoutMs: 10000,
      groupInstanceId: 'instance-1',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from('subscription') }],
    });
    expect(joined.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    const described = await admin.send(15, 5, { groups: [newGroup], includeAuthorizedOperations: false });
    expect(described.groups.map((g) => [g.errorCode, g.groupState, g.members.length])).toEqual([[ErrorCode.NONE, 'Dead', 0]]);

    const kafka = new Kafka({ clientId: 'disk-full', brokers: [server.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
    const producer = kafka.producer({ retry: { retries: 0 } });
    await producer.connect();
    await expect(producer.send({ topic: TOPIC, acks: -1, messages: [{ partition: 0, value: 'x'.repeat(1000) }] })).rejects.toMatchObject({ cause: { type: 'KAFKA_STORAGE_ERROR' } });

    // Requests whose file writes fail are answered with Kafka's errors, not a closed connection
    // (adversarial trial 17): an auto-created topic LEADER_NOT_AVAILABLE (as Kafka answers while it
    // asks for the creation), the first transactional lookup (which creates __transaction_state)
    // COORDINATOR_NOT_AVAILABLE, a deletion UNKNOWN_SERVER_ERROR with the cause; nothing is left
    // half-made, no temporary file either.
    fs.fill();
    const auto = await admin.send(3, 12, { ...defaultMetadataRequest(), topics: [{ ...defaultMetadataRequestTopic(), name: 'disk-full-auto' }], allowAutoTopicCreation: true });
    expect(auto.topics.map((t) => [t.name, t.errorCode])).toEqual([['disk-full-auto', ErrorCode.LEADER_NOT_AVAILABLE]]);
    const txn = await admin.send(10, 4, { ...defaultFindCoordinatorRequest(), keyType: 1, coordinatorKeys: ['disk-full-txn'] });
    expect(txn.coordinators.map((c) => c.errorCode)).toEqual([ErrorCode.COORDINATOR_NOT_AVAILABLE]);
    const deleted = await admin.send(20, 6, { ...defaultDeleteTopicsRequest(), topics: [{ ...defaultDeleteTopicState(), name: 'disk-full-doomed' }], timeoutMs: 5000 });
    expect(deleted.responses.map((r) => [r.errorCode, r.errorMessage])).toEqual([[ErrorCode.UNKNOWN_SERVER_ERROR, expect.stringContaining('ENOSPC')]]);
    const listed = await admin.send(3, 12, { ...defaultMetadataRequest(), topics: null, allowAutoTopicCreation: false });
    expect(listed.topics.map((t) => t.name).sort()).toEqual(['__consumer_offsets', TOPIC, 'disk-full-doomed']);
    expect(readdirSync(`${fs.dir}/data`).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    // Space is back: the next commits go through (the first one may still meet the rollback of
    // the last failure) and the producer writes, all without a restart.
    fs.free();
    for (let i = 0; i < COMMITTERS; i++) {
      let code = -1;
      for (let attempt = 0; attempt < 5 && code !== 0; attempt++) code = await commit(committers[i]!, i, 200n + BigInt(attempt));
      expect(code).toBe(0);
      acked[i] = await fetchCommitted(admin, i);
      expect(acked[i]! >= 200n).toBe(true);
    }
    const [sent] = await producer.send({ topic: TOPIC, acks: -1, messages: [{ partition: 0, value: 'after' }] });
    expect(sent!.errorCode).toBe(0);
    await producer.disconnect();
    // The lookup that could not create __transaction_state creates it now, and it is listed.
    const txnAfter = await admin.send(10, 4, { ...defaultFindCoordinatorRequest(), keyType: 1, coordinatorKeys: ['disk-full-txn'] });
    expect(txnAfter.coordinators.map((c) => c.errorCode)).toEqual([ErrorCode.NONE]);
    const listedAfter = await admin.send(3, 12, { ...defaultMetadataRequest(), topics: null, allowAutoTopicCreation: false });
    expect(listedAfter.topics.map((t) => t.name).filter((n) => n!.startsWith('__')).sort()).toEqual(['__consumer_offsets', '__transaction_state']);
    expect(readdirSync(`${fs.dir}/data`, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.tmp') && !f.endsWith('leader-epoch-checkpoint.tmp'))).toEqual([]);

    // A crash now loses nothing acknowledged, and brings back nothing that was not.
    expect(await kill(server, 'SIGKILL')).toBe(null);
    server = await startCli(args);
    servers.push(server);
    const after = await RawClient.connect(server.port);
    clients.push(after);
    for (let i = 0; i < COMMITTERS; i++) expect(await fetchCommitted(after, i)).toBe(acked[i]);
    const restarted = new Kafka({ clientId: 'disk-full', brokers: [server.bootstrap], logLevel: logLevel.NOTHING });
    const kafkaAdmin = restarted.admin();
    await kafkaAdmin.connect();
    const ends = (await kafkaAdmin.fetchTopicOffsets(TOPIC)).sort((a, b) => a.partition - b.partition).map((p) => [p.low, p.high]);
    await kafkaAdmin.disconnect();
    expect(ends).toEqual([['0', '1'], ['0', '0'], ['0', '0'], ['0', '0']]);
    const consumer = restarted.consumer({ groupId: 'disk-full-reader', maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    const first = new Promise<string>((resolve) => void consumer.run({ eachMessage: async ({ message }) => resolve(message.value!.toString()) }));
    expect(await first).toBe('after');
    await consumer.disconnect();
  });
});
