/**
 * A real KIP-848 client against the server: librdkafka (python confluent-kafka, pinned by .ci/run)
 * with group.protocol=consumer. Three members on a 6-partition topic get 2 partitions each; one
 * leaves and the other two get 3 each; every message is consumed (exactly once after the group settled;
 * a commit racing a partition's move may let its next owner consume it again); the commits are
 * read back with kafkajs. The same with group.remote.assignor=range checks the range layout and
 * the type-5 records' serverAssignor.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/index.js';
import { decodeRecord } from '../../src/coordinator/records.js';
import { decodeRecords } from '../../src/records/record-batch.js';
import { python, runPython } from '../support/python.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(HERE, 'clients', 'librdkafka_consumer_group.py');
const PARTITIONS = 6;
const PHASE = 30;


interface Result {
  ok: boolean;
  stage: string;
  error?: string;
  assignments3?: number[][];
  assignments2?: number[][];
  consumed?: Array<{ member: number; partition: number; offset: number; key: string }>;
  committed?: Record<string, number>;
}

async function runGroup(assignor: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'kmc-848-'));
  const server = await startServer({
    port: 0,
    dataDir,
    config: {
      'group.consumer.heartbeat.interval.ms': 300,
      'group.consumer.min.heartbeat.interval.ms': 100,
      // Long enough that a loaded machine starving a client's heartbeats does not fence it.
      'group.consumer.session.timeout.ms': 30000,
      'group.consumer.min.session.timeout.ms': 1000,
    },
  });
  const kafka = new Kafka({ clientId: 'kmc-848-admin', brokers: [server.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const topic = `t848-${assignor || 'default'}`;
  const groupId = `g848-${assignor || 'default'}`;
  try {
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }] });
    // The client's own deadline (per wait) and ours are backstops for a hang, not speed limits.
    const args = [SCRIPT, '--bootstrap', server.bootstrap, '--topic', topic, '--group', groupId, '--partitions', String(PARTITIONS), '--phase', String(PHASE), '--timeout', '90'];
    if (assignor) args.push('--assignor', assignor);
    const run = await runPython(args, 240_000);
    const line = run.stdout.trim().split('\n').reverse().find((l) => l.startsWith('{'));
    const result = (line ? JSON.parse(line) : { ok: false, stage: '?' }) as Result;
    const context = `exit ${run.code}\nstdout: ${run.stdout.slice(-3000)}\nstderr: ${run.stderr.slice(-6000)}`;
    if (!result.ok) throw new Error(`client failed at ${result.stage}: ${result.error ?? ''}\n${context}`);

    // Every message consumed, each from where it was produced (key-i at partition i % PARTITIONS,
    // offset i / PARTITIONS). Phase 2 runs in a stable group: exactly once. Phase 1 runs while three
    // members join: a member's synchronous commit can race the partition's move to another member
    // (the new owner reads the committed offset first), so a phase-1 message may be consumed once
    // more by another member, as against Kafka; never by the same member twice.
    const consumed = result.consumed ?? [];
    for (const m of consumed) {
      const i = Number(m.key.slice('key-'.length));
      expect([m.partition, m.offset], `${m.key} ${context}`).toEqual([i % PARTITIONS, Math.floor(i / PARTITIONS)]);
    }
    const keys = [...new Set(consumed.map((m) => m.key))].sort();
    expect(keys, context).toEqual(Array.from({ length: 2 * PHASE }, (_, i) => `key-${i}`).sort());
    const phase2 = consumed.filter((m) => Number(m.key.slice('key-'.length)) >= PHASE);
    expect(phase2.length, context).toBe(PHASE);
    for (const key of keys) {
      const members = consumed.filter((m) => m.key === key).map((m) => m.member);
      expect(new Set(members).size, `${key} consumed by members ${members.join(',')}\n${context}`).toBe(members.length);
    }
    expect(result.assignments3!.map((a) => a.length)).toEqual([2, 2, 2]);
    expect(result.assignments3!.flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(result.assignments2!.map((a) => a.length)).toEqual([3, 3]);
    expect(result.assignments2!.flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const perPartition = (2 * PHASE) / PARTITIONS;
    expect(result.committed).toEqual(Object.fromEntries(Array.from({ length: PARTITIONS }, (_, p) => [String(p), perPartition])));
    const fetched = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(fetched[0]!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset)).toEqual(Array(PARTITIONS).fill(String(perPartition)));

    // The group's member records (type 5) in the offsets log.
    const memberRecords = server.broker.groupLog
      .partitionLogs()
      .flatMap((p) => [...p.batches()].flatMap((b) => decodeRecords(b)))
      .map((r) => decodeRecord(r.key!, r.value))
      .filter((r) => r.kind === 'cg-member-metadata' && r.groupId === groupId && r.value !== null);
    expect(memberRecords.length).toBeGreaterThanOrEqual(3);
    return { result, memberRecords };
  } finally {
    await admin.disconnect().catch(() => undefined);
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe.skipIf(python === null)('librdkafka with group.protocol=consumer (KIP-848)', () => {
  it('three members get 2 of 6 partitions each, two get 3 after one leaves; every message once; commits read back', async () => {
    const { memberRecords } = await runGroup('');
    for (const r of memberRecords) if (r.kind === 'cg-member-metadata') expect(r.value!.serverAssignor).toBe(null);
  }, 300_000);

  it('group.remote.assignor=range: contiguous ranges, and the member records name serverAssignor range', async () => {
    const { result, memberRecords } = await runGroup('range');
    const ranges3 = result.assignments3!.map((a) => a.join(',')).sort();
    expect(ranges3).toEqual(['0,1', '2,3', '4,5']);
    const ranges2 = result.assignments2!.map((a) => a.join(',')).sort();
    expect(ranges2).toEqual(['0,1,2', '3,4,5']);
    for (const r of memberRecords) if (r.kind === 'cg-member-metadata') expect(r.value!.serverAssignor).toBe('range');
  }, 300_000);
});
