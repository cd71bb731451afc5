/**
 * Producer state across a SIGKILL of the server (issue #13: "producer state snapshots or replay so
 * idempotence and transaction state survive a restart"). Kafka's `ProducerStateManager` rebuilds a
 * partition's producers from its snapshot or, without one, from the log; we replay the log at start.
 * Over raw requests against the command line (`dist/cli.js`): after the kill, a retried batch of an
 * idempotent producer that is one of its last 5 (same producer id, epoch and sequences) is answered
 * with its original offset and not appended again, an older one and one past a gap get
 * OUT_OF_ORDER_SEQUENCE_NUMBER, the next sequence appends; a transactional producer's open
 * transaction still holds the last stable offset, its retried batch is a duplicate too, and its
 * commit (EndTxn) releases the last stable offset. A producer id handed out before the kill is not
 * handed out again (ids come in durable blocks of 1000, as a Kafka broker's from its controller).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startCli, kill, type CliServer } from '../support/cli-process.js';
import { tempDataDir } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { batchOf, createTopic, latestOffset, produce, type BatchSpec } from '../support/raw-transactions.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultInitProducerIdRequest } from '../../src/protocol/messages/InitProducerIdRequest.js';

const TOPIC = 'producer-state';
const TXN_ID = 'producer-state-txn';

const latest = (raw: RawClient, isolationLevel: number): Promise<bigint> => latestOffset(raw, TOPIC, isolationLevel);

async function initProducerId(raw: RawClient, transactionalId: string | null): Promise<{ producerId: bigint; producerEpoch: number }> {
  const res = await raw.send(22, 4, { ...defaultInitProducerIdRequest(), transactionalId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  expect(res.errorCode).toBe(ErrorCode.NONE);
  return { producerId: res.producerId, producerEpoch: res.producerEpoch };
}

describe('producer state across a SIGKILL of the server', () => {
  const data = tempDataDir('kmc-producer-state-');
  const servers: CliServer[] = [];
  const clients: RawClient[] = [];
  afterAll(async () => {
    for (const c of clients) c.close();
    for (const s of servers) await kill(s, 'SIGKILL');
    data.remove();
  });
  const start = async (): Promise<RawClient> => {
    const server = await startCli(['--port', '0', '--data-dir', data.dir]);
    servers.push(server);
    const raw = await RawClient.connect(server.port);
    clients.push(raw);
    return raw;
  };

  it('deduplicates a retry of one of the last 5 batches, refuses old and out-of-order sequences, and keeps the open transaction', { timeout: 120_000 }, async () => {
    let raw = await start();
    await createTopic(raw, TOPIC);
    const idem = await initProducerId(raw, null);
    const batch = (baseSequence: number): BatchSpec => ({ ...idem, baseSequence, count: 4, transactional: false });
    // Six batches of 4: offsets 0-23, sequences 0-23; Kafka keeps the last 5 (sequences 4-23).
    for (let b = 0; b < 6; b++) expect(await produce(raw, TOPIC, null, batchOf(batch(4 * b)))).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: BigInt(4 * b) });
    const txn = await initProducerId(raw, TXN_ID);
    const added = await raw.send(24, 3, { transactions: [], v3AndBelowTransactionalId: TXN_ID, v3AndBelowProducerId: txn.producerId, v3AndBelowProducerEpoch: txn.producerEpoch, v3AndBelowTopics: [{ name: TOPIC, partitions: [0] }] });
    expect(added.resultsByTopicV3AndBelow[0]!.resultsByPartition[0]!.partitionErrorCode).toBe(ErrorCode.NONE);
    const txnBatch = batchOf({ ...txn, baseSequence: 0, count: 3, transactional: true, prefix: 't' });
    expect(await produce(raw, TOPIC, TXN_ID, txnBatch)).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 24n });
    expect([await latest(raw, 0), await latest(raw, 1)]).toEqual([27n, 24n]);
    // An idempotent producer that got its id and had written nothing when the server died.
    const unused = await initProducerId(raw, null);
    expect([idem.producerId, txn.producerId, unused.producerId]).toEqual([0n, 1n, 2n]);

    expect(await kill(servers[0]!, 'SIGKILL')).toBe(null);
    raw = await start();
    // Its id is not handed out again: the restarted broker starts at the next block of 1000 ids, as Kafka's.
    expect((await initProducerId(raw, null)).producerId).toBe(1000n);

    expect([await latest(raw, 0), await latest(raw, 1)]).toEqual([27n, 24n]);
    // Retries of the last batch and of the oldest one kept: acknowledged with their offsets, nothing appended.
    expect(await produce(raw, TOPIC, null, batchOf(batch(20)))).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 20n });
    expect(await produce(raw, TOPIC, null, batchOf(batch(4)))).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 4n });
    // The sixth batch back is no longer known, and a gap is a gap: OUT_OF_ORDER_SEQUENCE_NUMBER.
    expect((await produce(raw, TOPIC, null, batchOf(batch(0)))).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect((await produce(raw, TOPIC, null, batchOf(batch(28)))).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(await latest(raw, 0)).toBe(27n);
    // The next sequence appends after the transactional batch.
    expect(await produce(raw, TOPIC, null, batchOf(batch(24)))).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 27n });

    // The transactional producer: its retry is a duplicate, its transaction is still open and commits.
    expect(await produce(raw, TOPIC, TXN_ID, txnBatch)).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 24n });
    expect([await latest(raw, 0), await latest(raw, 1)]).toEqual([31n, 24n]);
    const ended = await raw.send(26, 3, { transactionalId: TXN_ID, producerId: txn.producerId, producerEpoch: txn.producerEpoch, committed: true });
    expect(ended.errorCode).toBe(ErrorCode.NONE);
    // The COMMIT marker lands at 31 once the coordinator writes it (after the answer, as Kafka's).
    let stable = await latest(raw, 1);
    while (stable !== 32n) {
      expect(stable).toBe(24n);
      await new Promise((r) => setTimeout(r, 20));
      stable = await latest(raw, 1);
    }
    expect(await latest(raw, 0)).toBe(32n);
    expect(await kill(servers[1]!, 'SIGTERM')).toBe(0);
  });
});
