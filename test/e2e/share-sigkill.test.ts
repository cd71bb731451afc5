/**
 * A server process killed with SIGKILL in the middle of share consumption: after the restart no
 * acknowledged record is delivered again, the records that were acquired but not acknowledged
 * are (at least once), and the share-partition start offset is kept (`__share_group_state` is
 * replayed). Raw protocol over real sockets against the built command line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { RawClient } from '../support/raw-client.js';
import { tempDataDir } from '../support/server.js';
import { kill, startCli, type CliServer } from '../support/cli-process.js';
import { kafkaClient } from '../support/kafkajs.js';
import type { ShareFetchRequest } from '../../src/protocol/messages/ShareFetchRequest.js';

const uuid = () => randomBytes(16).toString('base64url');

function fetchReq(memberId: string, epoch: number, topicId: string): ShareFetchRequest {
  return {
    groupId: 'g', memberId, shareSessionEpoch: epoch, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
    shareAcquireMode: 0, isRenewAck: false,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] }] }],
    forgottenTopicsData: [],
  };
}

describe('share consumption across a SIGKILL', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function start(dir: string): Promise<{ server: CliServer; c: RawClient }> {
    const server = await startCli(['--port', '0', '--data-dir', dir]);
    cleanups.push(() => kill(server, 'SIGKILL'));
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    return { server, c };
  }

  it('keeps acknowledgements and the start offset; acquired records come back', async () => {
    const data = tempDataDir('kmc-share-kill-');
    cleanups.push(() => data.remove());
    const first = await start(data.dir);
    const created = await first.c.send(19, 7, { topics: [{ name: 'sk', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10000, validateOnly: false });
    const topicId = created.topics[0]!.topicId;
    const producer = kafkaClient(first.server.bootstrap).producer();
    await producer.connect();
    await producer.send({ topic: 'sk', acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })) });
    await producer.disconnect();
    const init = await first.c.send(83, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 0, startOffset: 0n }] }] });
    expect(init.results[0]!.partitions[0]!.errorCode).toBe(0);
    const m = uuid();
    const got = await first.c.send(78, 2, fetchReq(m, 0, topicId));
    expect(got.responses[0]!.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 9n, deliveryCount: 1 }]);
    const ack = await first.c.send(79, 2, { groupId: 'g', memberId: m, shareSessionEpoch: 1, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 4n, acknowledgeTypes: [1] }, { firstOffset: 6n, lastOffset: 6n, acknowledgeTypes: [3] }] }] }] });
    expect(ack.responses[0]!.partitions[0]!.errorCode).toBe(0);
    expect(await kill(first.server, 'SIGKILL')).toBe(null);

    const second = await start(data.dir);
    const again = await second.c.send(78, 2, fetchReq(uuid(), 0, topicId));
    // 0-4 accepted and 6 rejected are never delivered again; 5, 7, 8, 9 were held when the broker died.
    expect(again.responses[0]!.partitions[0]!.acquiredRecords).toEqual([
      { firstOffset: 5n, lastOffset: 5n, deliveryCount: 1 },
      { firstOffset: 7n, lastOffset: 9n, deliveryCount: 1 },
    ]);
    const summary = await second.c.send(87, 1, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: -1 }] }] });
    expect(summary.results[0]!.partitions[0]).toMatchObject({ errorCode: 0, startOffset: 0n, deliveryCompleteCount: 6 });
  }, 120_000);
});
