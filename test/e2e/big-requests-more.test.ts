/**
 * More big requests and passes that do not stall the others (issue #16 item 5), shown by order of
 * events or by turns of the event loop, never by time:
 * - The retention and cleaner passes look at `MAINTENANCE_SLICE_PARTITIONS` partitions per turn of
 *   the event loop, resolving each topic's LogConfig once (`TopicStore.logConfigs`).
 * - The request log gathers the error codes of a huge response a slice per turn before it is sent
 *   (`LoggedRequest.setResponseInSlices`), here of a topic named twice with 100,000 partitions each.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { MAINTENANCE_SLICE_PARTITIONS } from '../../src/topics/log-maintenance.js';
import { createTopics, nextTurn, offsetCommit, topic } from '../support/big-requests.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Turns of the event loop until `work` settles (each turn also polls the sockets). */
async function turnsUntil(work: Promise<unknown>): Promise<number> {
  let done = false;
  void work.then(() => (done = true));
  let turns = 0;
  while (!done) {
    await nextTurn();
    turns++;
  }
  return turns;
}

describe('big requests and passes, more', () => {
  it('an OffsetCommit naming one topic twice with 100,000 partitions each is answered; its request log entry has its error', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    expect((await c.send(19, 7, createTopics([topic('twice', 10)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const partitions = Array.from({ length: 100_000 }, (_, i) => ({ partitionIndex: i, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }));
    const res = await c.send(8, 8, offsetCommit('g-twice', [{ name: 'twice', partitions }, { name: 'twice', partitions }]));
    // The topic has 10 partitions: those commit, the others do not exist.
    for (const t of res.topics) {
      expect([t.name, t.partitions.length]).toEqual(['twice', 100_000]);
      expect(t.partitions.every((p, i) => p.partitionIndex === i && p.errorCode === (i < 10 ? ErrorCode.NONE : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))).toBe(true);
    }
    expect(c.closed).toBe(false);
    const [entry] = server.faults.requests({ api: 'OffsetCommit' });
    expect([entry!.topics, entry!.outcome, entry!.error, entry!.errors]).toEqual([['twice'], 'response', 'UNKNOWN_TOPIC_OR_PARTITION', ['UNKNOWN_TOPIC_OR_PARTITION']]);
  });

  it('the retention and cleaner passes over 3 x MAINTENANCE_SLICE_PARTITIONS partitions take a turn of the event loop per slice', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'log.cleaner.enable': false } });
    const c = await RawClient.connect(server.port);
    cleanups.push(() => c.close());
    // Under Kafka's 10,000 partitions per CreateTopics: one request per topic.
    for (const name of ['kept-a', 'kept-b', 'kept-c']) {
      expect((await c.send(19, 7, createTopics([topic(name, MAINTENANCE_SLICE_PARTITIONS)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    }
    const retention = server.broker.logMaintenance.retentionPass();
    // A request sent while the pass runs is answered (the pass yields between its slices).
    const answered = c.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' });
    expect(await turnsUntil(retention)).toBeGreaterThanOrEqual(3);
    expect(await retention).toEqual({ partitions: [], segmentsDeleted: 0 });
    expect((await answered).errorCode).toBe(ErrorCode.NONE);
    expect(await turnsUntil(server.broker.logMaintenance.cleanerPass())).toBeGreaterThanOrEqual(3);
  });
});
