/**
 * Pipelined requests (several sent before the first answer) on a real server: each connection is
 * served one request at a time in arrival order, as Kafka's `Processor` mutes a channel until the
 * response to its current request is sent, even though a log's group commit serves them in rounds
 * of one turn (util/burst.ts). So an OffsetFetch pipelined behind an OffsetCommit sees that commit,
 * under every flush policy, and the answers to the requests before a bad frame are sent before it
 * closes the connection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { Pipeliner, type PipelinedRequest as Request } from '../support/pipeliner.js';
import type { ServerHandle } from '../../src/index.js';

const commit = (group: string, partition: number, offset: bigint): Request => ({
  apiKey: 8,
  version: 8,
  body: {
    groupId: group,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [{ name: 't', partitions: [{ partitionIndex: partition, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: `m${offset}` }] }],
  },
});

const fetchOffset = (group: string, partition: number): Request => ({
  apiKey: 9,
  version: 8,
  body: { groupId: '', topics: null, groups: [{ groupId: group, memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [partition] }] }], requireStable: false },
});

const committedIn = (res: any): bigint => res.groups[0].topics[0].partitions[0].committedOffset;

describe('pipelined requests on one connection', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function start(options: { inMemory?: boolean; policy?: string }): Promise<ServerHandle> {
    const { server } = await startClosableServer(cleanups, {
      inMemory: options.inMemory === true,
      config: options.policy ? { 'mock.flush.policy': options.policy } : {},
    });
    server.broker.topics.create('t', 8);
    return server;
  }

  async function open(server: ServerHandle): Promise<Pipeliner> {
    const p = await Pipeliner.connect(server.port);
    cleanups.push(() => p.close());
    return p;
  }

  it.each([
    ['never', false],
    ['always', false],
    ['interval', false],
    ['in memory', true],
  ] as const)('flush %s: commits and fetches sent together are answered in order, each fetch seeing the commit before it', async (policy, inMemory) => {
    const server = await start(inMemory ? { inMemory } : { policy });
    const p = await open(server);
    const requests: Request[] = [];
    for (let i = 1; i <= 12; i++) requests.push(commit('g', 0, BigInt(i)), fetchOffset('g', 0));
    p.write(requests, 100);
    const answers = await p.read(requests, 100);
    expect(answers).toHaveLength(24);
    for (let i = 0; i < 12; i++) {
      expect(answers[2 * i].topics[0].partitions[0]).toEqual({ partitionIndex: 0, errorCode: 0 });
      expect(answers[2 * i + 1].groups[0].errorCode).toBe(0);
      expect(committedIn(answers[2 * i + 1])).toBe(BigInt(i + 1));
    }
    expect(server.broker.offsets.fetch('g', 't', 0)).toMatchObject({ committedOffset: 12n, metadata: 'm12' });
  });

  it('many connections pipelining into one group: every connection in order, every commit durable and visible', async () => {
    const server = await start({ policy: 'never' });
    const conns = await Promise.all(Array.from({ length: 8 }, () => open(server)));
    const perConnection = conns.map((_, c) => {
      const requests: Request[] = [];
      for (let i = 1; i <= 16; i++) requests.push(commit('shared', c, BigInt(c * 1000 + i)));
      requests.push(fetchOffset('shared', c));
      return requests;
    });
    conns.forEach((p, c) => p.write(perConnection[c]!, 1));
    const answers = await Promise.all(conns.map((p, c) => p.read(perConnection[c]!, 1)));
    answers.forEach((list, c) => {
      expect(list).toHaveLength(17);
      expect(list.slice(0, 16).map((a) => a.topics[0].partitions[0].errorCode)).toEqual(new Array(16).fill(0));
      expect(committedIn(list[16])).toBe(BigInt(c * 1000 + 16));
    });
    // Kafka's log: 8 x 16 commits, each its own batch of one record, all on the group's partition.
    const groupLog = server.broker.groupLog;
    const partition = groupLog.partitionLogs()[groupLog.partitionFor('shared')]!;
    expect(partition.logEndOffset).toBe(128n);
  });

  it.each(['always', 'never'])('flush %s: requests sent while the connection is muted with its next request buffered (not read meanwhile) are read and answered once it catches up', async (policy) => {
    const server = await start({ policy });
    const p = await open(server);
    const first: Request[] = [];
    for (let i = 1; i <= 16; i++) first.push(commit('late', 2, BigInt(i)));
    p.write(first, 1);
    // The first answer: its connection was muted with 15 whole requests buffered, so reading it stopped.
    const [firstAnswer] = await p.read(first.slice(0, 1), 1);
    expect(firstAnswer.topics[0].partitions[0].errorCode).toBe(0);
    const second: Request[] = [];
    for (let i = 17; i <= 32; i++) second.push(commit('late', 2, BigInt(i)));
    second.push(fetchOffset('late', 2));
    p.write(second, 17);
    const rest = await p.read([...first.slice(1), ...second], 2);
    expect(rest).toHaveLength(32);
    expect(rest.slice(0, 31).map((a) => a.topics[0].partitions[0].errorCode)).toEqual(new Array(31).fill(0));
    expect(committedIn(rest[31])).toBe(32n);
  });

  it('the requests before a bad frame are answered before it closes the connection', async () => {
    const server = await start({ policy: 'never' });
    const p = await open(server);
    const requests = [commit('g2', 1, 5n), commit('g2', 1, 6n), fetchOffset('g2', 1)];
    // A frame with an API key no broker has: Kafka closes the connection.
    const bad = Buffer.alloc(14);
    bad.writeInt32BE(10, 0);
    bad.writeInt16BE(999, 4);
    p.write(requests, 7, bad);
    const answers = await p.read(requests, 7);
    expect(answers).toHaveLength(3);
    expect(committedIn(answers[2])).toBe(6n);
    await p.waitClosed();
  });
});
