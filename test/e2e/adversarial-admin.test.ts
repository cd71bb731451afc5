/**
 * The admin API against hostile ids: a transactional id or group id of Kafka's longest (32,767
 * UTF-8 bytes, three per character here, nine once percent-encoded in the path) is described by
 * `GET /transactions/{id}` and `GET /groups/{id}` (Node's 16 KiB request-head limit answered 431).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { getJson } from '../support/admin-http.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** 10,922 euro signs: 32,766 UTF-8 bytes, under Kafka's int16 string limit. */
const LONGEST = '€'.repeat(10_922);

describe('admin API: hostile ids', () => {
  it('a transactional id and a group id of 32,766 UTF-8 bytes are described by path', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, adminPort: 0 });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    const init = await c.send(22, 4, { transactionalId: LONGEST, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    expect(init.errorCode).toBe(ErrorCode.NONE);
    const created = await c.send(19, 5, { topics: [{ name: 'aa-topic', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
    expect(created.topics.map((t) => t.errorCode)).toEqual([ErrorCode.NONE]);
    const committed = await c.send(8, 8, {
      groupId: LONGEST,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [{ name: 'aa-topic', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    expect(committed.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);

    const base = server.admin!.url;
    const txn = await getJson(base, `/transactions/${encodeURIComponent(LONGEST)}`);
    expect(txn.status).toBe(200);
    expect(txn.body).toMatchObject({ transactionalId: LONGEST, state: 'Empty', producerId: Number(init.producerId), producerEpoch: 0, pendingOffsets: [] });
    const group = await getJson(base, `/groups/${encodeURIComponent(LONGEST)}/offsets`);
    expect(group.status).toBe(200);
    expect(group.body).toMatchObject({ groupId: LONGEST, offsets: [{ topic: 'aa-topic', partition: 0, committedOffset: 0 }] });
  });
});
