/**
 * The console's lag series (src/admin/group-lag.ts): a group keeps as many samples as its share of
 * the 2 million lags all groups may keep (10 to 300), one a second at most, against a real broker's
 * log-end offsets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupLag, LagBudget, TopicMoves, type CommittedEntry } from '../../src/admin/group-lag.js';
import { RawClient } from '../support/raw-client.js';
import { createTopics, topic } from '../support/big-requests.js';
import { startTestServer } from '../support/server.js';

const committed = (partition: number, offset: bigint): CommittedEntry => ({
  topic: 'lagged',
  partition,
  offset: { committedOffset: offset, leaderEpoch: -1, metadata: '', commitTimestamp: 0n, expireTimestamp: -1n, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' },
});

describe('GroupLag', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;

  beforeAll(async () => {
    server = await startTestServer({});
    const client = await RawClient.connect(server.port);
    expect((await client.send(19, 7, createTopics([topic('lagged', 2)]))).topics[0]!.errorCode).toBe(0);
    client.close();
  });
  afterAll(() => server.stop());

  it("keeps its share of the budget: 300 samples alone, 100 beside 20,000 other series, at least 10", () => {
    const budget = new LagBudget();
    expect(budget.samplesPerGroup).toBe(300);
    budget.add(20_000);
    expect(budget.samplesPerGroup).toBe(100);
    budget.add(1_000_000);
    expect(budget.samplesPerGroup).toBe(10);
    // 19,998 other series and this group's 2: 100 samples each.
    budget.add(-1_000_002);
    const lag = new GroupLag(budget);
    const read = (): CommittedEntry[] => [];
    let t = 0;
    for (let i = 0; i < 150; i++) {
      // Offsets above the log end (0): lag 0; a commit at -i makes lag i, a change every second.
      t += 1000;
      expect(lag.sample(server.broker, t, [committed(0, BigInt(-i)), committed(1, 0n)], read, new TopicMoves(server.broker))).toBe(true);
    }
    expect(lag.keys).toEqual(['lagged-0', 'lagged-1']);
    expect(lag.samples).toHaveLength(100);
    expect(lag.samples.at(-1)).toEqual({ t: 150_000, lag: [149, 0] });
    expect(lag.samples[0]).toEqual({ t: 51_000, lag: [50, 0] });
    // Within the second after the last sample, a change replaces it.
    expect(lag.sample(server.broker, 150_500, [committed(0, -200n), committed(1, 0n)], read, new TopicMoves(server.broker))).toBe(true);
    expect(lag.samples.at(-1)).toEqual({ t: 150_000, lag: [200, 0] });
    expect(lag.samples).toHaveLength(100);
    // Unchanged offsets and topics: nothing read, no sample until 10 s after the last.
    const unread = (): CommittedEntry[] => expect.fail('read an unchanged group');
    expect(lag.sample(server.broker, 159_999, null, unread, new TopicMoves(server.broker))).toBe(false);
    expect(lag.samples.at(-1)!.t).toBe(150_000);
    expect(lag.sample(server.broker, 160_000, null, unread, new TopicMoves(server.broker))).toBe(false);
    expect(lag.samples.at(-1)).toEqual({ t: 160_000, lag: [200, 0] });
  });
});
