/**
 * The "real client" scenario shared by test/e2e/franz-go.test.ts, platformatic.test.ts and
 * kafka-python.test.ts, and the recorder of the API versions each client uses.
 *
 * Scenario (one server, one 3-partition topic, one group, the client under test does all the
 * producing and consuming; kafkajs admin only creates the topic and reads offsets back):
 *   1. produce 20 messages, message i to partition i % 3 (7, 7, 6), keys `a-i`;
 *   2. a consumer joins the group, reads exactly those (offsets 0..n-1 of each partition), commits,
 *      reads its commit back, and closes (leaves the group); the committed offsets must be 7, 7, 6,
 *      and kafkajs `admin.fetchOffsets` must say the same;
 *   3. produce 10 more (4, 3, 3), keys `b-i`;
 *   4. a new consumer in the same group must resume exactly at the committed offsets: it reads the
 *      10 new messages and nothing committed before (with auto.offset.reset=earliest, a lost
 *      commit would re-deliver from offset 0); it commits 11, 10, 9.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { expect } from 'vitest';

import type { RequestLogEntry, ServerHandle } from '../../../src/index.js';
import { startTestServer } from '../../support/server.js';
import { apiVersionsPath } from '../../support/api-versions.js';
import { REPO_ROOT } from '../../support/clients.js';

export { REPO_ROOT };
export const API_VERSIONS_DIR = join(REPO_ROOT, 'test', 'clients', 'api-versions');

export const PARTITIONS = 3;
export const FIRST_COUNT = 20;
export const SECOND_COUNT = 10;

export type GroupProtocol = 'classic' | 'consumer';

export interface ClientRecord {
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
}

export interface PartitionOffset {
  partition: number;
  offset: number;
}

export interface ProduceOutcome {
  /** Messages acknowledged per partition, e.g. `{ '0': 7, '1': 7, '2': 6 }`. */
  produced: Record<string, number>;
}

export interface ConsumeOutcome {
  /** Every record the consumer was handed (sorted or not). */
  records: ClientRecord[];
  /** Committed offsets as the client read them back after its commit (its own OffsetFetch / committed()). */
  committed: PartitionOffset[];
}

/** How a test drives its client: each call is one client instance (a process or an in-process client). */
export interface ClientDriver {
  /** Client id the driver's requests carry (prefix match), to pick them out of the request log. */
  clientIdPrefix: string;
  produce(args: { bootstrap: string; topic: string; count: number; keyPrefix: string }): Promise<ProduceOutcome>;
  consume(args: { bootstrap: string; topic: string; group: string; count: number; protocol: GroupProtocol; round: number }): Promise<ConsumeOutcome>;
}

/** Per-partition counts when message i goes to partition i % PARTITIONS. */
export function countsFor(count: number): number[] {
  return [...Array(PARTITIONS).keys()].map((p) => Math.floor(count / PARTITIONS) + (p < count % PARTITIONS ? 1 : 0));
}

/** Collects `{api, version}` of every request whose client id starts with a prefix, from the server's request log. */
export class ApiVersionRecorder {
  private lastSeq = 0;
  private readonly seen = new Map<string, { apiKey: number; versions: Set<number> }>();
  private readonly timer: NodeJS.Timeout;
  readonly entries: RequestLogEntry[] = [];

  constructor(private readonly server: ServerHandle, private readonly clientIdPrefix: string) {
    // The log is a ring of the newest 1000 requests: drain it often so nothing is lost.
    this.timer = setInterval(() => this.drain(), 100);
  }

  drain(): void {
    for (const e of this.server.faults.requests({ sinceSeq: this.lastSeq })) {
      this.lastSeq = Math.max(this.lastSeq, e.seq);
      if (!e.clientId.startsWith(this.clientIdPrefix)) continue;
      this.entries.push(e);
      const cur = this.seen.get(e.api) ?? { apiKey: e.apiKey, versions: new Set<number>() };
      cur.versions.add(e.version);
      this.seen.set(e.api, cur);
    }
  }

  stop(): void {
    this.drain();
    clearInterval(this.timer);
  }

  /** `{ api: versions[] }` sorted by API key. */
  versions(): Record<string, number[]> {
    this.drain();
    const out: Record<string, number[]> = {};
    for (const [api, { versions }] of [...this.seen.entries()].sort((a, b) => a[1].apiKey - b[1].apiKey)) {
      out[api] = [...versions].sort((a, b) => a - b);
    }
    return out;
  }

  apiKeys(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [api, { apiKey }] of this.seen) out[api] = apiKey;
    return out;
  }
}

interface ApiVersionsFile {
  client: string;
  clientVersion: string;
  note: string;
  /** Per group protocol run: API name -> versions used. */
  runs: Record<string, Record<string, number[]>>;
  /** Union over the runs, by API key: `[{ api, apiKey, versions }]`. */
  apis: Array<{ api: string; apiKey: number; versions: number[] }>;
}

/** Merges one run's versions into test/clients/api-versions/<client>.json (runs of other protocols are kept). */
export function writeApiVersions(client: string, clientVersion: string, protocol: GroupProtocol, recorder: ApiVersionRecorder): void {
  const file = apiVersionsPath(join(API_VERSIONS_DIR, `${client}.json`));
  let previous: ApiVersionsFile | null = null;
  if (existsSync(file)) {
    try {
      previous = JSON.parse(readFileSync(file, 'utf8')) as ApiVersionsFile;
    } catch {
      previous = null;
    }
  }
  const keys: Record<string, number> = {};
  for (const a of previous?.apis ?? []) keys[a.api] = a.apiKey;
  Object.assign(keys, recorder.apiKeys());
  const runs: Record<string, Record<string, number[]>> =
    previous !== null && previous.clientVersion === clientVersion ? { ...previous.runs } : {};
  runs[protocol] = recorder.versions();
  const union = new Map<string, Set<number>>();
  for (const run of Object.values(runs)) {
    for (const [api, versions] of Object.entries(run)) {
      const set = union.get(api) ?? new Set<number>();
      for (const v of versions) set.add(v);
      union.set(api, set);
    }
  }
  const apis = [...union.entries()]
    .map(([api, versions]) => ({ api, apiKey: keys[api] ?? -1, versions: [...versions].sort((a, b) => a - b) }))
    .sort((a, b) => a.apiKey - b.apiKey);
  const sortedRuns = Object.fromEntries(Object.entries(runs).sort(([a], [b]) => a.localeCompare(b)));
  const out: ApiVersionsFile = {
    client,
    clientVersion,
    note: 'Written by the e2e test of this client (test/e2e/*.test.ts): the request API versions it sent to kafka-mock-coordinator, from the server request log, per group protocol run.',
    runs: sortedRuns,
    apis,
  };
  // One line per version list (`"Fetch": [12, 17]`) and per API entry.
  const text = JSON.stringify(out, null, 2)
    .replace(/\[\s+([\d,\s]+?)\s+\]/g, (_m, inner: string) => `[${inner.split(/,\s*/).join(', ')}]`)
    .replace(/\{\s+("api": [^\n]+),\s+("apiKey": [^\n]+),\s+("versions": \[[^\]\n]*\])\s+\}/g, '{ $1, $2, $3 }');
  writeFileSync(file, `${text}\n`);
}

function byPartition(records: ClientRecord[]): Map<number, ClientRecord[]> {
  const out = new Map<number, ClientRecord[]>();
  for (let p = 0; p < PARTITIONS; p++) out.set(p, []);
  for (const r of records) out.get(r.partition)?.push(r);
  for (const rs of out.values()) rs.sort((a, b) => a.offset - b.offset);
  return out;
}

/** The records of a consume round must be exactly offsets `from[p] ..< from[p] + n[p]` of each partition, with the round's keys. */
function expectExactly(records: ClientRecord[], from: number[], counts: number[], keyPrefix: string, context: string): void {
  const parts = byPartition(records);
  for (let p = 0; p < PARTITIONS; p++) {
    const got = parts.get(p) ?? [];
    const start = from[p] ?? 0;
    const n = counts[p] ?? 0;
    expect(got.map((r) => r.offset), `partition ${p} offsets\n${context}`).toEqual([...Array(n).keys()].map((k) => start + k));
    for (const r of got) {
      const i = Number(r.key?.slice(keyPrefix.length + 1));
      expect(r.key?.startsWith(`${keyPrefix}-`), `key ${r.key} of p${p}@${r.offset}\n${context}`).toBe(true);
      expect(i % PARTITIONS, `key ${r.key} on partition ${p}\n${context}`).toBe(p);
      expect(r.value, context).toBe(`value-${i}`);
    }
  }
}

async function adminOffsets(admin: Admin, groupId: string, topic: string): Promise<PartitionOffset[]> {
  const fetched = await admin.fetchOffsets({ groupId, topics: [topic] });
  return [...(fetched.find((t) => t.topic === topic)?.partitions ?? [])]
    .sort((a, b) => a.partition - b.partition)
    .map(({ partition, offset }) => ({ partition, offset: Number(offset) }));
}

function asOffsets(counts: number[]): PartitionOffset[] {
  return counts.map((offset, partition) => ({ partition, offset }));
}

export interface ScenarioResult {
  recorder: ApiVersionRecorder;
}

/**
 * Runs the scenario above against a fresh server with `driver`; returns the recorder (stopped) so the
 * test can write the versions file and check the group protocol the client really used.
 */
export async function runGroupResumeScenario(
  driver: ClientDriver,
  protocol: GroupProtocol,
  names: { topic: string; group: string },
): Promise<ScenarioResult> {
  const server = await startTestServer();
  const recorder = new ApiVersionRecorder(server, driver.clientIdPrefix);
  const kafka = new Kafka({ clientId: 'kmc-e2e-admin', brokers: [server.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const { topic, group } = names;
  try {
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }], waitForLeaders: true });

    const first = countsFor(FIRST_COUNT);
    const second = countsFor(SECOND_COUNT);
    const total = first.map((n, p) => n + (second[p] ?? 0));

    // 1. produce the first batch
    const p1 = await driver.produce({ bootstrap: server.bootstrap, topic, count: FIRST_COUNT, keyPrefix: 'a' });
    expect(p1.produced).toEqual(Object.fromEntries(first.map((n, p) => [String(p), n])));

    // 2. consume it in the group, commit, close
    const c1 = await driver.consume({ bootstrap: server.bootstrap, topic, group, count: FIRST_COUNT, protocol, round: 1 });
    const ctx1 = `round 1 (${protocol}): ${JSON.stringify(c1)}`;
    expectExactly(c1.records, [0, 0, 0], first, 'a', ctx1);
    expect(c1.committed, ctx1).toEqual(asOffsets(first));
    expect(await adminOffsets(admin, group, topic)).toEqual(asOffsets(first));

    // 3. produce the second batch
    const p2 = await driver.produce({ bootstrap: server.bootstrap, topic, count: SECOND_COUNT, keyPrefix: 'b' });
    expect(p2.produced).toEqual(Object.fromEntries(second.map((n, p) => [String(p), n])));

    // 4. a new consumer in the same group resumes at the committed offsets
    const c2 = await driver.consume({ bootstrap: server.bootstrap, topic, group, count: SECOND_COUNT, protocol, round: 2 });
    const ctx2 = `round 2 (${protocol}): ${JSON.stringify(c2)}`;
    expectExactly(c2.records, first, second, 'b', ctx2);
    expect(c2.committed, ctx2).toEqual(asOffsets(total));
    expect(await adminOffsets(admin, group, topic)).toEqual(asOffsets(total));

    // The group protocol the client really spoke.
    recorder.drain();
    const groupApis = new Set(recorder.entries.filter((e) => e.groups.includes(group)).map((e) => e.api));
    if (protocol === 'classic') {
      expect([...groupApis], 'classic: JoinGroup/SyncGroup, no ConsumerGroupHeartbeat').toEqual(expect.arrayContaining(['JoinGroup', 'SyncGroup', 'OffsetCommit']));
      expect(groupApis.has('ConsumerGroupHeartbeat')).toBe(false);
    } else {
      expect([...groupApis], 'consumer: ConsumerGroupHeartbeat, no JoinGroup').toEqual(expect.arrayContaining(['ConsumerGroupHeartbeat', 'OffsetCommit']));
      expect(groupApis.has('JoinGroup')).toBe(false);
    }
    if (protocol === 'classic') {
      // Each consumer left on close (LeaveGroup), so the next one joined without waiting out a session.
      const described = await admin.describeGroups([group]);
      expect(described.groups[0]?.members ?? [], 'every consumer left the group on close').toEqual([]);
    }
    if (process.env['KMC_E2E_DUMP_REQUESTS'] === '1') {
      for (const e of recorder.entries) {
        console.log(`${e.clientId} ${e.api} v${e.version} groups=${e.groups.join(',')} outcome=${e.outcome} errors=${e.errors.join(',')}`);
      }
    }
    return { recorder };
  } finally {
    recorder.stop();
    await admin.disconnect().catch(() => undefined);
    await server.stop();
  }
}
