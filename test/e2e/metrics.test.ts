/**
 * `GET /metrics` scraped while a kafkajs group consumes and commits: kafka_exporter's series with
 * exact values (topic offsets, group offsets and lag, members, and the -1 the exporter reports for
 * a partition of a consumed topic with no commit), and the server's own counters rising with the
 * requests that happen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Consumer, Producer } from 'kafkajs';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { startTestServer } from '../support/server.js';
import { parsePrometheus as parse } from '../support/prometheus.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const TOPIC = 'metrics-topic';
const GROUP = 'metrics-group';

describe('GET /metrics', () => {
  let server: Server;
  let producer: Producer;
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    server = await startTestServer({ adminPort: 0 });
  });

  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.disconnect().catch(() => {})));
    await producer?.disconnect().catch(() => {});
    await server.stop();
  });

  const scrape = async (): Promise<{ text: string; samples: Map<string, number> }> => {
    const res = await fetch(`${server.admin!.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    return { text, samples: parse(text) };
  };
  const committed = (partition: number): number | undefined => {
    const found = server.broker.offsets.offsetsOf(GROUP).find((o) => o.topic === TOPIC && o.partition === partition);
    return found === undefined ? undefined : Number(found.offset.committedOffset);
  };
  const sumOf = (samples: Map<string, number>, prefix: string, ...labels: string[]): number =>
    [...samples].filter(([k]) => k.startsWith(`${prefix}{`) && labels.every((l) => k.includes(l))).reduce((n, [, v]) => n + v, 0);

  it('counts the process CPU from the start of the process, not from the first admin request', async () => {
    const seconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;
    const before = seconds(process.cpuUsage());
    const { samples } = await scrape();
    const after = seconds(process.cpuUsage());
    // prom-client counts from its registration; the test process had spent its seconds long before.
    const total = samples.get('process_cpu_seconds_total')!;
    expect(total).toBeGreaterThanOrEqual(before);
    expect(total).toBeLessThanOrEqual(after);
    expect(samples.get('process_cpu_user_seconds_total')! + samples.get('process_cpu_system_seconds_total')!).toBeCloseTo(total, 5);
  });

  it('reports kafka_exporter series with exact values and kmc_ counters that rise with requests', async () => {
    const kafka = kafkaClient(server.bootstrap, 'metrics-admin');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] });
    // A group known only by a commit to partition 0: partition 1 has none (-1, as the exporter says).
    await admin.setOffsets({ groupId: 'metrics-standalone', topic: TOPIC, partitions: [{ partition: 0, offset: '1' }] });
    await admin.disconnect();

    for (const clientId of ['metrics-member-a', 'metrics-member-b']) {
      const consumer = kafkaClient(server.bootstrap, clientId).consumer({ groupId: GROUP, sessionTimeout: 10_000, heartbeatInterval: 300, rebalanceTimeout: 10_000, maxWaitTimeInMs: 200 });
      consumers.push(consumer);
      await consumer.connect();
      await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
      // Commits what it reads except `tail` messages: the lag behind them is known exactly.
      await consumer.run({ autoCommit: false, eachMessage: async ({ partition, message }) => {
        if (message.value?.toString() !== 'tail') await consumer.commitOffsets([{ topic: TOPIC, partition, offset: String(Number(message.offset) + 1) }]);
      } });
    }
    const group = () => server.broker.classic.allGroups().find((g) => g.groupId === GROUP);
    await waitFor(() => group()?.state === 'Stable' && group()?.numMembers === 2, 60_000, 'two members, stable');
    producer = kafkaClient(server.bootstrap, 'metrics-producer').producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, acks: -1, messages: ['a', 'b', 'c', 'd', 'tail'].map((value) => ({ partition: 0, value })) });
    await producer.send({ topic: TOPIC, acks: -1, messages: ['e', 'f'].map((value) => ({ partition: 1, value })) });
    await waitFor(() => committed(0) === 4 && committed(1) === 2, 60_000, 'commits at 4 and 2');

    const first = await scrape();
    const s = first.samples;
    const t = `topic="${TOPIC}"`;
    expect(s.get('kafka_brokers')).toBe(1);
    expect(s.get(`kafka_broker_info{address="localhost:${server.port}",id="1"}`)).toBe(1);
    expect(s.get(`kafka_topic_partitions{${t}}`)).toBe(2);
    expect(s.get(`kafka_topic_partition_current_offset{partition="0",${t}}`)).toBe(5);
    expect(s.get(`kafka_topic_partition_current_offset{partition="1",${t}}`)).toBe(2);
    expect(s.get(`kafka_topic_partition_oldest_offset{partition="0",${t}}`)).toBe(0);
    expect(s.get(`kafka_topic_partition_leader{partition="1",${t}}`)).toBe(1);
    expect(s.get(`kafka_topic_partition_replicas{partition="1",${t}}`)).toBe(1);
    expect(s.get(`kafka_topic_partition_in_sync_replica{partition="1",${t}}`)).toBe(1);
    expect(s.get(`kafka_topic_partition_leader_is_preferred{partition="1",${t}}`)).toBe(1);
    expect(s.get(`kafka_topic_partition_under_replicated_partition{partition="1",${t}}`)).toBe(0);

    const g = `consumergroup="${GROUP}"`;
    expect(s.get(`kafka_consumergroup_current_offset{${g},partition="0",${t}}`)).toBe(4);
    expect(s.get(`kafka_consumergroup_current_offset{${g},partition="1",${t}}`)).toBe(2);
    expect(s.get(`kafka_consumergroup_lag{${g},partition="0",${t}}`)).toBe(1);
    expect(s.get(`kafka_consumergroup_lag{${g},partition="1",${t}}`)).toBe(0);
    expect(s.get(`kafka_consumergroup_current_offset_sum{${g},${t}}`)).toBe(6);
    expect(s.get(`kafka_consumergroup_lag_sum{${g},${t}}`)).toBe(1);
    expect(s.get(`kafka_consumergroup_members{${g}}`)).toBe(2);

    const alone = 'consumergroup="metrics-standalone"';
    expect(s.get(`kafka_consumergroup_current_offset{${alone},partition="0",${t}}`)).toBe(1);
    expect(s.get(`kafka_consumergroup_current_offset{${alone},partition="1",${t}}`)).toBe(-1);
    expect(s.get(`kafka_consumergroup_lag{${alone},partition="0",${t}}`)).toBe(4);
    expect(s.get(`kafka_consumergroup_lag{${alone},partition="1",${t}}`)).toBe(-1);
    expect(s.get(`kafka_consumergroup_current_offset_sum{${alone},${t}}`)).toBe(0);
    expect(s.get(`kafka_consumergroup_lag_sum{${alone},${t}}`)).toBe(4);
    expect(s.get(`kafka_consumergroup_members{${alone}}`)).toBe(0);
    // kafka_exporter's help text, which dashboards show.
    expect(first.text).toContain('# HELP kafka_consumergroup_lag Current Approximate Lag of a ConsumerGroup at Topic/Partition\n# TYPE kafka_consumergroup_lag gauge');

    // The server's own: commits, requests and their latencies agree with each other.
    const commitsBefore = sumOf(s, 'kmc_requests_total', 'api="OffsetCommit"', 'error="NONE"');
    expect(commitsBefore).toBeGreaterThanOrEqual(6);
    expect(s.get(`kmc_offset_commits_total{${g}}`)).toBe(commitsBefore - 1);
    expect(s.get('kmc_offset_commits_total{consumergroup="metrics-standalone"}')).toBe(1);
    expect(s.get('kmc_request_duration_seconds_count{api="OffsetCommit"}')).toBe(sumOf(s, 'kmc_requests_total', 'api="OffsetCommit"'));
    expect(s.get('kmc_request_duration_seconds_bucket{api="OffsetCommit",le="+Inf"}')).toBe(s.get('kmc_request_duration_seconds_count{api="OffsetCommit"}'));
    // Every first JoinGroup (kafkajs's admin setOffsets joins too) is answered MEMBER_ID_REQUIRED, as the request log says.
    expect(sumOf(s, 'kmc_requests_total', 'api="JoinGroup"', 'error="MEMBER_ID_REQUIRED"')).toBe(server.faults.requests({ api: 'JoinGroup' }).filter((e) => e.error === 'MEMBER_ID_REQUIRED').length);
    expect(sumOf(s, 'kmc_requests_total', 'api="JoinGroup"', 'error="MEMBER_ID_REQUIRED"')).toBeGreaterThanOrEqual(2);
    expect(s.get('kmc_connections')).toBeGreaterThanOrEqual(3);
    expect(s.get('kmc_offsets_log_segments')).toBe(50);
    expect(s.get('kmc_offsets_log_bytes')).toBeGreaterThan(0);
    expect(s.get('kmc_log_cleaner_runs_total')).toBe(0);
    expect(s.get('kmc_retention_expired_offsets_total')).toBe(0);
    expect(s.has('process_cpu_user_seconds_total')).toBe(true);
    expect(s.has('nodejs_heap_size_used_bytes')).toBe(true);

    // One more message for partition 1: its owner commits once more, and the counter says so.
    await producer.send({ topic: TOPIC, acks: -1, messages: [{ partition: 1, value: 'g' }] });
    await waitFor(() => committed(1) === 3, 60_000, 'the commit at 3');
    const second = (await scrape()).samples;
    expect(sumOf(second, 'kmc_requests_total', 'api="OffsetCommit"', 'error="NONE"')).toBe(commitsBefore + 1);
    expect(second.get(`kmc_offset_commits_total{${g}}`)).toBe(commitsBefore);
    expect(second.get(`kafka_consumergroup_current_offset{${g},partition="1",${t}}`)).toBe(3);
    expect(second.get(`kafka_topic_partition_current_offset{partition="1",${t}}`)).toBe(3);
    expect(sumOf(second, 'kmc_requests_total', 'api="Produce"')).toBe(sumOf(s, 'kmc_requests_total', 'api="Produce"') + 1);
  });
});
