/**
 * Requests naming many topics do not stall the others (issue #16, adversarial trial 14): one Slicer
 * counts a request's topics and partitions together, so topics of one partition each are sliced
 * too, not only a topic's partitions. Each test shows it by order of events, never by time: the
 * big request's first topic is done (seen from inside the server), another connection's request
 * sent then is answered before the big one, and the big one's answer is the same as unsliced.
 * Counts are `CREATE_SLICE_PARTITIONS` (`DELETE_SLICE_PARTITIONS`) times 8: at least 8 slices
 * whatever the machine's speed (the Slicer also cuts a slice short after `SLICE_BUDGET_MS`).
 */
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PENDING_CREATION_PREFIX } from '../../src/topics/pending-creations.js';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CREATE_SLICE_PARTITIONS, DELETE_SLICE_PARTITIONS } from '../../src/topics/topic-store.js';
import { createTopics, metadata, nextTurn, topic } from '../support/big-requests.js';
import type { ServerHandle } from '../../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

async function twoClients(server: ServerHandle): Promise<{ big: RawClient; other: RawClient }> {
  const big = await RawClient.connect(server.port);
  const other = await RawClient.connect(server.port);
  cleanups.push(() => big.close(), () => other.close());
  return { big, other };
}

/**
 * Sends the big request, waits (a turn of the event loop at a time) until `started` says its work
 * is under way, then sends `small` on the other connection; returns both answers and the order they came in.
 */
async function race<B, S>(big: () => Promise<B>, started: () => boolean, small: () => Promise<S>): Promise<{ bigRes: B; smallRes: S; order: string[] }> {
  const order: string[] = [];
  const bigDone = big().then((r) => {
    order.push('big');
    return r;
  });
  while (!started() && order.length === 0) await nextTurn();
  const smallRes = await small();
  order.push('small');
  return { bigRes: await bigDone, smallRes, order };
}

describe('requests naming many topics', () => {
  it('CreateTopics of thousands of one-partition topics: another connection is answered before it completes', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const { big, other } = await twoClients(server);
    const all = names('many', CREATE_SLICE_PARTITIONS * 8);
    const { bigRes, smallRes, order } = await race(
      () => big.send(19, 7, createTopics(all.map((n) => topic(n, 1)))),
      () => server.broker.topics.get('many-0') !== undefined,
      () => other.send(3, 12, metadata(['many-0', all.at(-1)!])),
    );
    expect(order).toEqual(['small', 'big']);
    // The first topic exists, the last not yet.
    expect(smallRes.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ['many-0', ErrorCode.NONE],
      [all.at(-1), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    expect(bigRes.topics.map((t) => [t.name, t.errorCode, t.numPartitions])).toEqual(all.map((n) => [n, ErrorCode.NONE, 1]));
    expect(all.filter((n) => server.broker.topics.get(n)?.partitionCount !== 1)).toEqual([]);
  });

  it("one topic's creation waits for its files' syncs off the event loop: another connection is answered while the creation is pending", async () => {
    const { server, dataDir } = await startClosableServer(cleanups, {});
    const { big, other } = await twoClients(server);
    // Pending from its marker's write until its commit, whose syncs run on the thread pool (before,
    // all of it was one synchronous step, and no request was served in between).
    const pending = () => readdirSync(dataDir).some((f) => f.startsWith(PENDING_CREATION_PREFIX));
    const { bigRes, smallRes, order } = await race(
      () => big.send(19, 7, { ...createTopics([topic('synced', 1)]), topics: [{ ...topic('synced', 1), configs: [{ name: 'retention.ms', value: '60000' }] }] } as never),
      pending,
      () => other.send(3, 12, metadata(['synced'])),
    );
    expect(order).toEqual(['small', 'big']);
    expect(smallRes.topics.map((t) => [t.name, t.errorCode])).toEqual([['synced', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]);
    expect(bigRes.topics.map((t) => [t.name, t.errorCode])).toEqual([['synced', ErrorCode.NONE]]);
    expect(pending()).toBe(false);
    expect(server.broker.configs.topicConfig('retention.ms', server.broker.configs.store.topicConfigs(server.broker.topics.get('synced')!.id), -1).value).toBe('60000');
  });

  it('CreatePartitions adding one partition to each of thousands of topics: another connection is answered before it completes', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const { big, other } = await twoClients(server);
    const all = names('grow', CREATE_SLICE_PARTITIONS * 8);
    expect(new Set((await big.send(19, 7, createTopics(all.map((n) => topic(n, 1))))).topics.map((t) => t.errorCode))).toEqual(new Set([ErrorCode.NONE]));
    const { bigRes, smallRes, order } = await race(
      () => big.send(37, 3, { topics: all.map((name) => ({ name, count: 2, assignments: null })), timeoutMs: 30000, validateOnly: false }),
      () => server.broker.topics.get('grow-0')!.partitionCount === 2,
      () => other.send(3, 12, metadata(['grow-0', all.at(-1)!])),
    );
    expect(order).toEqual(['small', 'big']);
    expect(smallRes.topics.map((t) => [t.name, t.partitions.length])).toEqual([
      ['grow-0', 2],
      [all.at(-1), 1],
    ]);
    expect(bigRes.results.map((r) => [r.name, r.errorCode, r.errorMessage])).toEqual(all.map((n) => [n, ErrorCode.NONE, null]));
    expect(all.filter((n) => server.broker.topics.get(n)!.partitionCount !== 2)).toEqual([]);
  });

  it('Metadata auto-creating thousands of topics: another connection is answered before it completes, the topics answered as unsliced', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const { big, other } = await twoClients(server);
    const all = names('auto', CREATE_SLICE_PARTITIONS * 8);
    const autoCreate = (topics: string[]) => ({ ...metadata(topics), allowAutoTopicCreation: true });
    const { bigRes, smallRes, order } = await race(
      () => big.send(3, 12, autoCreate(all)),
      () => server.broker.topics.get('auto-0') !== undefined,
      // The last topic is still to be created by the big request: it is being created by neither, so this one creates it.
      () => other.send(3, 12, autoCreate(['auto-0', all.at(-1)!])),
    );
    expect(order).toEqual(['small', 'big']);
    expect(smallRes.topics.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual([
      ['auto-0', ErrorCode.NONE, 1],
      [all.at(-1), ErrorCode.NONE, 1],
    ]);
    // Same answer as unsliced: every topic in request order, the one created meanwhile as it now is.
    expect(bigRes.topics.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual(all.map((n) => [n, ErrorCode.NONE, 1]));
    expect(bigRes.topics.at(-1)!.topicId).toBe(smallRes.topics[1]!.topicId);
    expect(all.filter((n) => server.broker.topics.get(n)?.partitionCount !== 1)).toEqual([]);
  });

  it('Metadata auto-creating a topic another Metadata is creating in slices: LEADER_NOT_AVAILABLE, as Kafka answers a creation in flight', async () => {
    const partitions = CREATE_SLICE_PARTITIONS * 8;
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'num.partitions': partitions } });
    const { big, other } = await twoClients(server);
    const autoCreate = (topics: string[]) => ({ ...metadata(topics), allowAutoTopicCreation: true });
    const { bigRes, smallRes, order } = await race(
      () => big.send(3, 12, autoCreate(['wide'])),
      () => server.broker.topics.isBeingCreated('wide'),
      () => other.send(3, 12, autoCreate(['wide'])),
    );
    expect(order).toEqual(['small', 'big']);
    expect(smallRes.topics.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual([['wide', ErrorCode.LEADER_NOT_AVAILABLE, 0]]);
    expect(bigRes.topics.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual([['wide', ErrorCode.NONE, partitions]]);
  });

  it('DeleteTopics of thousands of one-partition topics: another connection is answered before it completes', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const { big, other } = await twoClients(server);
    const all = names('gone', DELETE_SLICE_PARTITIONS * 8);
    expect(new Set((await big.send(19, 7, createTopics(all.map((n) => topic(n, 1))))).topics.map((t) => t.errorCode))).toEqual(new Set([ErrorCode.NONE]));
    const { bigRes, smallRes, order } = await race(
      () => big.send(20, 5, { topicNames: all, topics: [], timeoutMs: 30000 }),
      () => server.broker.topics.get('gone-0') === undefined,
      () => other.send(3, 12, metadata(['gone-0', all.at(-1)!])),
    );
    expect(order).toEqual(['small', 'big']);
    expect(smallRes.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ['gone-0', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      [all.at(-1), ErrorCode.NONE],
    ]);
    expect(bigRes.responses.map((r) => [r.name, r.errorCode])).toEqual(all.map((n) => [n, ErrorCode.NONE]));
    expect(server.broker.topics.list().filter((t) => t.name.startsWith('gone-'))).toEqual([]);
  });
});
