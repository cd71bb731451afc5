/**
 * End to end with the Java client (org.apache.kafka:kafka-clients 4.3.1, test/clients/java):
 * KafkaConsumer with group.protocol=classic and =consumer (produce, consume in a group, commitSync,
 * restart, resume at the committed offsets), the seeds' position-vs-committed experiment, and
 * auto-commit on close. Each run's API versions go to test/clients/java/api-versions.json.
 * Skipped (test/support/provision.ts says why) on a machine without java and mvn.
 */
import { afterAll, expect, it } from 'vitest';
import { describeJava, expectOk, javaClasspath, recordApiVersions, runJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const classpath = javaClasspath!;

async function withServer<T>(scenario: string, fn: (server: Server) => Promise<T>): Promise<T> {
  const server = await startTestServer({
    logLevel: 'warn',
    config: {
      // Short KIP-848 heartbeats so the consumer-protocol members settle quickly.
      'group.consumer.min.heartbeat.interval.ms': 500,
      'group.consumer.heartbeat.interval.ms': 500,
      'group.consumer.assignment.interval.ms': 0,
    },
  } as any);
  try {
    const out = await fn(server);
    recordApiVersions(scenario, server.faults.requests());
    return out;
  } finally {
    await server.stop();
  }
}

/** Partition -> offsets seen, as the programs print them. */
type ByPartition = Record<string, number[]>;

describeJava.each(['classic', 'consumer'])('Java KafkaConsumer group.protocol=%s', (protocol) => {
  it('consumes in a group, commits, restarts and resumes at the committed offsets', async () => {
    await withServer(`consumer-resume-${protocol}`, async (server) => {
      const run = expectOk(await runJava(classpath, 'GroupResume', [server.bootstrap, `resume-${protocol}`, `g-resume-${protocol}`, protocol]));
      const [first, second] = run.events;
      // First consumer (max.poll.records=4): polls until it has at least 12 records (which
      // partitions they come from depends on when each fetch answer lands), commitSync(), close.
      // Whatever it got is a prefix of each partition, and committed() equals position().
      expect(first).toMatchObject({ event: 'first', assignment: [0, 1, 2] });
      const firstCount = first!['count'] as number;
      expect(firstCount).toBeGreaterThanOrEqual(12);
      const firstRecords = first!['records'] as ByPartition;
      const taken = [0, 1, 2].map((p) => firstRecords[p]?.length ?? 0);
      expect(taken.reduce((a, b) => a + b, 0)).toBe(firstCount);
      for (const p of [0, 1, 2]) if (taken[p]! > 0) expect(firstRecords[p]).toEqual(range(0, taken[p]!));
      const positions = Object.fromEntries([0, 1, 2].map((p) => [p, taken[p]!]));
      expect(first!['position']).toEqual(positions);
      expect(first!['committed']).toEqual(positions);
      // The restarted consumer resumes exactly at the committed offsets: nothing twice, nothing lost.
      expect(second).toMatchObject({ event: 'second', count: 30 - firstCount });
      const secondRecords = second!['records'] as ByPartition;
      for (const p of [0, 1, 2]) expect(secondRecords[p] ?? []).toEqual(range(taken[p]!, 10));
      expect(second!['position']).toEqual({ 0: 10, 1: 10, 2: 10 });
      expect(second!['committed']).toEqual({ 0: 10, 1: 10, 2: 10 });
      const all = [first, second].flatMap((e) => Object.entries(e!['records'] as ByPartition).flatMap(([p, offs]) => offs.map((o) => `${p}:${o}`)));
      expect(new Set(all).size).toBe(30);
      // What the broker holds agrees with committed().
      for (const p of [0, 1, 2]) expect(server.broker.offsets.fetch(`g-resume-${protocol}`, `resume-${protocol}`, p)?.committedOffset).toBe(10n);
    });
  }, 180_000);

  it("the seeds' experiment: committed stays at the commit while position moves on", async () => {
    await withServer(`seeds-experiment-${protocol}`, async (server) => {
      const run = expectOk(await runJava(classpath, 'PositionVsCommitted', [server.bootstrap, `seeds-${protocol}`, `g-seeds-${protocol}`, protocol]));
      console.log(JSON.stringify(run.events));
      const [poll1, poll2, commit, poll3] = run.events;
      // 30 messages, 10 per partition, max.poll.records=5: the first two polls drain partition 0's
      // first 10 records; nothing is committed yet.
      expect(poll1).toMatchObject({ event: 'poll', poll: 1, count: 5, records: { 0: range(0, 5) } });
      expect(poll1!['committed']).toEqual({ 0: -1, 1: -1, 2: -1 });
      expect(poll2).toMatchObject({ event: 'poll', poll: 2, count: 5, records: { 0: range(5, 10) } });
      expect(poll2!['position']).toEqual({ 0: 10, 1: 0, 2: 0 });
      expect(poll2!['committed']).toEqual({ 0: -1, 1: -1, 2: -1 });
      // commitSync() commits every assigned partition's position, those not consumed yet at 0.
      expect(commit).toMatchObject({ event: 'commit', position: { 0: 10, 1: 0, 2: 0 }, committed: { 0: 10, 1: 0, 2: 0 } });
      // The third poll moves partition 1's position on; committed stays where the commit put it.
      expect(poll3).toMatchObject({ event: 'poll', poll: 3, count: 5, records: { 1: range(0, 5) } });
      expect(poll3!['position']).toEqual({ 0: 10, 1: 5, 2: 0 });
      expect(poll3!['committed']).toEqual({ 0: 10, 1: 0, 2: 0 });
    });
  }, 180_000);

  it('auto-commit on close commits the whole polled batch; manual commit what was processed; a halt nothing', async () => {
    await withServer(`auto-commit-on-close-${protocol}`, async (server) => {
      const topic = `autocommit-${protocol}`;
      const args = (group: string, mode: string): string[] => [server.bootstrap, topic, group, protocol, mode];
      expectOk(await runJava(classpath, 'AutoCommitOnClose', args('unused', 'setup')));

      // enable.auto.commit=true, auto.commit.interval.ms=60000, max.poll.records=20: poll 20, process 5, close().
      const auto = expectOk(await runJava(classpath, 'AutoCommitOnClose', args(`g-auto-${protocol}`, 'auto')));
      expect(auto.events[0]).toMatchObject({ event: 'closed', mode: 'auto', polled: 20, processedThrough: 4, position: 20 });
      // Manual commit of the 5 processed records, then close().
      const manual = expectOk(await runJava(classpath, 'AutoCommitOnClose', args(`g-manual-${protocol}`, 'manual')));
      expect(manual.events[0]).toMatchObject({ event: 'closed', mode: 'manual', polled: 20, processedThrough: 4, position: 20 });
      // Auto-commit on, but the JVM is killed (SIGKILL) after the poll: no close, no commit.
      const halt = await runJava(classpath, 'AutoCommitOnClose', args(`g-halt-${protocol}`, 'halt'), { killOn: (e) => e['event'] === 'polled' });
      expect(halt.signal).toBe('SIGKILL');
      expect(halt.events[0]).toMatchObject({ event: 'polled', mode: 'halt', polled: 20, position: 20 });

      const committed: Record<string, number> = {};
      for (const group of [`g-auto-${protocol}`, `g-manual-${protocol}`, `g-halt-${protocol}`]) {
        const run = expectOk(await runJava(classpath, 'AutoCommitOnClose', args(group, 'committed')));
        committed[group] = run.events[0]!['offset'] as number;
      }
      expect(committed).toEqual({ [`g-auto-${protocol}`]: 20, [`g-manual-${protocol}`]: 5, [`g-halt-${protocol}`]: -1 });
    });
  }, 240_000);
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

describeJava('Java KafkaConsumer group.protocol=consumer with a broker-side regex (SubscriptionPattern)', () => {
  it('gets the partitions of the matching topics, learns their names by topic id, consumes and commits', async () => {
    await withServer('consumer-regex', async (server) => {
      const run = expectOk(await runJava(classpath, 'RegexSubscribe', [server.bootstrap, 'jrx', 'g-jrx']));
      expect(run.events[0]).toMatchObject({
        event: 'regex',
        count: 8,
        records: { 'jrx-a:0': 2, 'jrx-a:1': 2, 'jrx-b:0': 4 },
        assignment: ['jrx-a:0', 'jrx-a:1', 'jrx-b:0'],
      });
      for (const [topic, p, offset] of [['jrx-a', 0, 2n], ['jrx-a', 1, 2n], ['jrx-b', 0, 4n]] as const) {
        expect(server.broker.offsets.fetch('g-jrx', topic, p)?.committedOffset).toBe(offset);
      }
      expect(server.broker.offsets.fetch('g-jrx', 'other-jrx', 0)).toBeUndefined();
    });
  }, 180_000);
});
