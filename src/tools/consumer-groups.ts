/**
 * `kafka-mock-coordinator groups ...`: a look-alike of Kafka 4.3's `kafka-consumer-groups.sh`
 * (`org.apache.kafka.tools.consumer.group.ConsumerGroupCommand`) for `--list` and
 * `--describe --group G [--members [--verbose]] [--state [--verbose]] [--offsets [--verbose]]`,
 * talking to any Kafka-protocol server over the wire: FindCoordinator, DescribeGroups (classic
 * groups; member assignments decoded as ConsumerProtocolAssignment), ConsumerGroupDescribe
 * (KIP-848 consumer groups, which DescribeGroups reports as Dead; topic ids without a name are
 * resolved through Metadata), OffsetFetch (committed offsets) and ListOffsets (log-end offsets,
 * latest, read_uncommitted), ListGroups.
 *
 * Output is split as Kafka's is: state remarks ("has no active members", "is rebalancing") go to
 * stderr, tables and `Error: ...` lines to stdout. Column widths, row order and the `-` for
 * missing values follow ConsumerGroupService's printOffsets/printMembers/printStates.
 */
import { Reader } from '../protocol/primitives.js';
import * as ConsumerProtocolAssignment from '../records/schemas/ConsumerProtocolAssignment.js';
import { KafkaClient, KafkaClientError, parseHostPort } from './kafka-client.js';
import { MISSING, Output, groupStateName, left, type CommandOutput } from './tool-output.js';

export { MISSING, groupStateName, type CommandOutput } from './tool-output.js';

/**
 * Kafka's `shouldPrintMemberState`: prints the state remark and says whether rows follow.
 * `numRows` null = the group could not be described.
 */
function shouldPrintMemberState(out: Output, group: string, state: string, numRows: number | null): boolean {
  if (numRows === null) {
    out.error(`The consumer group '${group}' does not exist.`);
    return false;
  }
  switch (state) {
    case 'Dead':
      out.error(`Consumer group '${group}' does not exist.`);
      break;
    case 'Empty':
      out.stderr += `\nConsumer group '${group}' has no active members.\n`;
      break;
    case 'PreparingRebalance':
    case 'CompletingRebalance':
    case 'Assigning':
    case 'Reconciling':
      out.stderr += `\nWarning: Consumer group '${group}' is rebalancing.\n`;
      break;
    case 'Stable':
      break;
    default:
      throw new Error(`Expected a valid consumer group state, but found '${state}'.`);
  }
  return state !== 'Dead' && numRows > 0;
}

// ---------------------------------------------------------------------------------------------
// Row models (Kafka's PartitionAssignmentState, MemberAssignmentState, GroupInformation)

export interface PartitionRow {
  group: string;
  topic: string | null;
  partition: number | null;
  /** Committed offset. */
  offset: bigint | null;
  logEndOffset: bigint | null;
  leaderEpoch: number | null;
  consumerId: string | null;
  host: string | null;
  clientId: string | null;
}

export interface MemberRow {
  group: string;
  consumerId: string;
  host: string;
  clientId: string;
  /** "" when the member has none. */
  groupInstanceId: string;
  assignment: Array<{ topic: string; partition: number }>;
  targetAssignment: Array<{ topic: string; partition: number }>;
  currentEpoch: number | null;
  targetEpoch: number | null;
  upgraded: boolean | null;
}

export interface GroupInformation {
  group: string;
  coordinator: { host: string; port: number; id: number };
  /** The assignor (classic groups: the selected protocol); "" = none. */
  assignmentStrategy: string;
  state: string;
  numMembers: number;
  groupEpoch: number | null;
  targetAssignmentEpoch: number | null;
}

function str(v: bigint | number | null): string {
  return v === null ? MISSING : String(v);
}

/** Kafka's `getLag`: committed offset present and not -1, log-end offset known. */
function lag(row: PartitionRow): string {
  if (row.offset === null || row.offset === -1n || row.logEndOffset === null) return MISSING;
  return String(row.logEndOffset - row.offset);
}

/** `printOffsets` for one group. */
export function formatOffsets(group: string, state: string, rows: PartitionRow[] | null, verbose: boolean, out = new Output()): CommandOutput {
  if (!shouldPrintMemberState(out, group, state, rows === null ? null : rows.length)) return out.result();
  let g = 15, t = 15, c = 15, h = 15;
  for (const r of rows ?? []) {
    g = Math.max(g, r.group.length);
    t = Math.max(t, (r.topic ?? MISSING).length);
    c = Math.max(c, (r.consumerId ?? MISSING).length);
    h = Math.max(h, (r.host ?? MISSING).length);
  }
  const line = (cols: string[]): string => {
    const widths = verbose ? [g, t, 10, 15, 15, 15, 15, c, h] : [g, t, 10, 15, 15, 15, c, h];
    return '\n' + cols.map((v, i) => (i < widths.length ? left(v, widths[i]!) : v)).join(' ');
  };
  out.stdout += verbose
    ? line(['GROUP', 'TOPIC', 'PARTITION', 'LEADER-EPOCH', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID'])
    : line(['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID']);
  for (const r of rows ?? []) {
    const head = [r.group, r.topic ?? MISSING, str(r.partition)];
    const tail = [str(r.offset), str(r.logEndOffset), lag(r), r.consumerId ?? MISSING, r.host ?? MISSING, r.clientId ?? MISSING];
    out.stdout += line(verbose ? [...head, str(r.leaderEpoch), ...tail] : [...head, ...tail]);
  }
  out.stdout += '\n';
  return out.result();
}

/** Kafka's `getAssignmentString`: `topic:0,1,2;topic2:0`, topics sorted, partitions sorted. */
export function assignmentString(assignment: Array<{ topic: string; partition: number }>): string {
  const byTopic = new Map<string, number[]>();
  for (const tp of assignment) {
    const list = byTopic.get(tp.topic) ?? [];
    list.push(tp.partition);
    byTopic.set(tp.topic, list);
  }
  return [...byTopic.entries()]
    .map(([topic, ps]) => topic + ':' + [...ps].sort((a, b) => a - b).join(','))
    .sort()
    .join(';');
}

/** `printMembers` for one group. */
export function formatMembers(group: string, state: string, members: MemberRow[] | null, verbose: boolean, out = new Output()): CommandOutput {
  let g = 15, c = 15, gi = 17, h = 15, cl = 15, cur = 20, tgt = 20;
  let includeGroupInstanceId = false;
  let hasClassicMember = false;
  let hasConsumerMember = false;
  if (shouldPrintMemberState(out, group, state, members === null ? null : members.length)) {
    for (const m of members ?? []) {
      g = Math.max(g, m.group.length);
      c = Math.max(c, m.consumerId.length);
      gi = Math.max(gi, m.groupInstanceId.length);
      h = Math.max(h, m.host.length);
      cl = Math.max(cl, m.clientId.length);
      includeGroupInstanceId ||= m.groupInstanceId !== '';
      cur = Math.max(cur, (m.assignment.length === 0 ? MISSING : assignmentString(m.assignment)).length);
      tgt = Math.max(tgt, (m.targetAssignment.length === 0 ? MISSING : assignmentString(m.targetAssignment)).length);
      hasClassicMember ||= m.upgraded === false;
      hasConsumerMember ||= m.upgraded === true;
    }
  }
  const withId = (v: string[]): string => `${left(v[0]!, g)} ${left(v[1]!, c)} ${left(v[2]!, gi)} ${left(v[3]!, h)} ${left(v[4]!, cl)} ${left(v[5]!, 15)} `;
  const withoutId = (v: string[]): string => `${left(v[0]!, g)} ${left(v[1]!, c)} ${left(v[2]!, h)} ${left(v[3]!, cl)} ${left(v[4]!, 15)} `;
  const migration = hasClassicMember && hasConsumerMember;
  const verboseCols = (v: string[]): string =>
    migration ? `${left(v[0]!, 15)} ${left(v[1]!, cur)} ${left(v[2]!, 15)} ${left(v[3]!, tgt)} ${v[4]!}` : `${left(v[0]!, 15)} ${left(v[1]!, cur)} ${left(v[2]!, 15)} ${left(v[3]!, tgt)}`;

  out.stdout += '\n' + (includeGroupInstanceId
    ? withId(['GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS'])
    : withoutId(['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS']));
  if (verbose) out.stdout += verboseCols(['CURRENT-EPOCH', 'CURRENT-ASSIGNMENT', 'TARGET-EPOCH', 'TARGET-ASSIGNMENT', 'UPGRADED']);
  out.stdout += '\n';
  for (const m of members ?? []) {
    const n = String(m.assignment.length);
    out.stdout += includeGroupInstanceId
      ? withId([m.group, m.consumerId, m.groupInstanceId, m.host, m.clientId, n])
      : withoutId([m.group, m.consumerId, m.host, m.clientId, n]);
    if (verbose) {
      out.stdout += verboseCols([
        str(m.currentEpoch),
        m.assignment.length === 0 ? MISSING : assignmentString(m.assignment),
        str(m.targetEpoch),
        m.targetAssignment.length === 0 ? MISSING : assignmentString(m.targetAssignment),
        m.upgraded === null ? MISSING : String(m.upgraded),
      ]);
    }
    out.stdout += '\n';
  }
  return out.result();
}

/** `printStates` for one group. */
export function formatState(info: GroupInformation, verbose: boolean, out = new Output()): CommandOutput {
  if (!shouldPrintMemberState(out, info.group, info.state, 1)) return out.result();
  const coordinator = `${info.coordinator.host}:${info.coordinator.port}  (${info.coordinator.id})`;
  const co = Math.max(25, coordinator.length);
  const g = Math.max(15, info.group.length);
  const strategy = info.assignmentStrategy === '' ? MISSING : info.assignmentStrategy;
  if (verbose) {
    const line = (v: string[]): string => `\n${left(v[0]!, g)} ${left(v[1]!, co)} ${left(v[2]!, 20)} ${left(v[3]!, 20)} ${left(v[4]!, 15)} ${left(v[5]!, 25)} ${v[6]!}`;
    out.stdout += line(['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', 'GROUP-EPOCH', 'TARGET-ASSIGNMENT-EPOCH', '#MEMBERS']);
    out.stdout += line([info.group, coordinator, strategy, info.state, str(info.groupEpoch), str(info.targetAssignmentEpoch), String(info.numMembers)]);
  } else {
    const line = (v: string[]): string => `\n${left(v[0]!, g)} ${left(v[1]!, co)} ${left(v[2]!, 20)} ${left(v[3]!, 20)} ${v[4]!}`;
    out.stdout += line(['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS']);
    out.stdout += line([info.group, coordinator, strategy, info.state, String(info.numMembers)]);
  }
  out.stdout += '\n';
  return out.result();
}

// ---------------------------------------------------------------------------------------------
// Talking to the server

/** Error codes used here (Kafka's `Errors`). */
export const GROUP_ID_NOT_FOUND = 69;
const ERROR_NAMES: Record<number, string> = {
  3: 'UNKNOWN_TOPIC_OR_PARTITION',
  14: 'COORDINATOR_LOAD_IN_PROGRESS',
  15: 'COORDINATOR_NOT_AVAILABLE',
  16: 'NOT_COORDINATOR',
  24: 'INVALID_GROUP_ID',
  30: 'GROUP_AUTHORIZATION_FAILED',
  69: 'GROUP_ID_NOT_FOUND',
};

export function errorName(code: number): string {
  return ERROR_NAMES[code] ?? `error code ${code}`;
}

export interface GroupDescription {
  group: string;
  /** `classic` (DescribeGroups) or `consumer` (KIP-848, ConsumerGroupDescribe). */
  type: 'classic' | 'consumer';
  state: string;
  protocolType: string;
  /** The selected protocol (assignor) of a classic group; the assignor name of a consumer group. */
  protocolData: string;
  coordinator: { host: string; port: number; id: number };
  /** Consumer groups: the group epoch and target assignment epoch (null for classic groups). */
  groupEpoch: number | null;
  targetAssignmentEpoch: number | null;
  members: Array<{
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    assignment: Array<{ topic: string; partition: number }>;
    /** Consumer groups only (classic: [] / null). */
    targetAssignment: Array<{ topic: string; partition: number }>;
    memberEpoch: number | null;
    /** Kafka's `MemberDescription.upgraded`: null when the member type is unknown (v0, classic groups). */
    upgraded: boolean | null;
  }>;
}

/** ConsumerGroupDescribe's member types (`MemberType`). */
const MEMBER_TYPE_CLASSIC = 0;
const MEMBER_TYPE_CONSUMER = 1;

/** Decodes a classic member's assignment (ConsumerProtocol: int16 version + ConsumerProtocolAssignment). */
export function decodeMemberAssignment(bytes: Buffer): Array<{ topic: string; partition: number }> {
  if (bytes.length === 0) return [];
  const r = new Reader(bytes);
  const version = r.int16();
  if (version < ConsumerProtocolAssignment.MIN_VERSION) throw new Error(`unsupported ConsumerProtocolAssignment version ${version}`);
  const a = ConsumerProtocolAssignment.decode(r, Math.min(version, ConsumerProtocolAssignment.MAX_VERSION));
  const out: Array<{ topic: string; partition: number }> = [];
  const seen = new Set<string>();
  for (const t of a.assignedPartitions) {
    for (const p of t.partitions) {
      const k = `${t.topic}\u0000${p}`;
      if (seen.has(k)) continue; // a Set<TopicPartition> in Kafka's admin client
      seen.add(k);
      out.push({ topic: t.topic, partition: p });
    }
  }
  return out;
}

export interface GroupsOptions {
  bootstrapServer: string;
  timeoutMs?: number;
}

/** A session against one cluster: the bootstrap connection plus the coordinator's. */
export class GroupsSession {
  private coordinatorClients = new Map<string, KafkaClient>();

  constructor(protected readonly bootstrap: KafkaClient, protected readonly timeoutMs: number) {}

  /** Connects to the first reachable bootstrap server; `new this` so subclasses open themselves. */
  static async open<T extends GroupsSession>(this: new (bootstrap: KafkaClient, timeoutMs: number) => T, options: GroupsOptions): Promise<T> {
    const servers = options.bootstrapServer.split(',').map((s) => s.trim()).filter((s) => s !== '');
    let lastError: Error = new KafkaClientError('--bootstrap-server is empty');
    for (const s of servers) {
      try {
        const { host, port } = parseHostPort(s);
        const client = await KafkaClient.connect(host, port, { timeoutMs: options.timeoutMs ?? 30000 });
        return new this(client, options.timeoutMs ?? 30000);
      } catch (err) {
        lastError = err as Error;
      }
    }
    throw lastError;
  }

  close(): void {
    this.bootstrap.close();
    for (const c of this.coordinatorClients.values()) c.close();
  }

  async findCoordinator(group: string): Promise<{ host: string; port: number; id: number }> {
    const res = await this.bootstrap.send(10, 3, { key: group, keyType: 0, coordinatorKeys: [] });
    if (res.errorCode !== 0) throw new KafkaClientError(`FindCoordinator for group ${group} failed: ${errorName(res.errorCode)}${res.errorMessage ? ` (${res.errorMessage})` : ''}`);
    return { host: res.host, port: res.port, id: res.nodeId };
  }

  protected async clientFor(node: { host: string; port: number }): Promise<KafkaClient> {
    if (node.host === this.bootstrap.host && node.port === this.bootstrap.port) return this.bootstrap;
    const key = `${node.host}:${node.port}`;
    let c = this.coordinatorClients.get(key);
    if (!c) {
      try {
        c = await KafkaClient.connect(node.host, node.port, { timeoutMs: this.timeoutMs });
      } catch {
        // A coordinator advertised under a name we cannot reach: a single-node server answers on the bootstrap too.
        return this.bootstrap;
      }
      this.coordinatorClients.set(key, c);
    }
    return c;
  }

  /** Finds `group`'s coordinator and asks it `describe`; the entry for `group` (else the first one). */
  protected async describeOnCoordinator<T extends { groupId: string }>(
    group: string,
    api: string,
    describe: (client: KafkaClient) => Promise<T[]>,
  ): Promise<{ coordinator: { host: string; port: number; id: number }; client: KafkaClient; described: T }> {
    const coordinator = await this.findCoordinator(group);
    const client = await this.clientFor(coordinator);
    const groups = await describe(client);
    const described = groups.find((x) => x.groupId === group) ?? groups[0];
    if (!described) throw new KafkaClientError(`${api} returned no group ${group}`);
    return { coordinator, client, described };
  }

  /**
   * DescribeGroups v5 on the coordinator. A group it reports as Dead (or GROUP_ID_NOT_FOUND) may be
   * a KIP-848 consumer group: it is then described with ConsumerGroupDescribe; a group neither
   * knows is reported with state Dead.
   */
  async describeGroup(group: string): Promise<GroupDescription> {
    const { coordinator, client, described: g } = await this.describeOnCoordinator(group, 'DescribeGroups', async (c) =>
      (await c.send(15, 5, { groups: [group], includeAuthorizedOperations: false })).groups);
    if (g.errorCode === GROUP_ID_NOT_FOUND || (g.errorCode === 0 && groupStateName(g.groupState) === 'Dead')) {
      const consumer = await this.describeConsumerGroup(group, coordinator, client);
      if (consumer) return consumer;
      return { group, type: 'classic', state: 'Dead', protocolType: '', protocolData: '', coordinator, groupEpoch: null, targetAssignmentEpoch: null, members: [] };
    }
    if (g.errorCode !== 0) throw new KafkaClientError(`DescribeGroups for group ${group} failed: ${errorName(g.errorCode)}`);
    const consumerLike = g.protocolType === 'consumer' || g.protocolType === '';
    if (!consumerLike) throw new KafkaClientError(`Group ${group} is not a consumer group (protocol type ${g.protocolType}).`);
    return {
      group,
      state: groupStateName(g.groupState),
      protocolType: g.protocolType,
      protocolData: g.protocolData,
      coordinator,
      type: 'classic',
      groupEpoch: null,
      targetAssignmentEpoch: null,
      members: g.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        assignment: decodeMemberAssignment(m.memberAssignment),
        targetAssignment: [],
        memberEpoch: null,
        upgraded: null,
      })),
    };
  }

  /**
   * ConsumerGroupDescribe (v1, else v0) on the coordinator, as Kafka's admin client reads it for
   * `describeConsumerGroups`; null when the coordinator knows no consumer group of that id.
   */
  async describeConsumerGroup(group: string, coordinator: { host: string; port: number; id: number }, client?: KafkaClient): Promise<GroupDescription | null> {
    const c = client ?? (await this.clientFor(coordinator));
    const versions = await this.apiVersions(c);
    const range = versions.get(69);
    if (!range || range.max < 0) return null;
    const version = Math.min(1, range.max);
    const res = await c.send(69, version, { groupIds: [group], includeAuthorizedOperations: false });
    const g = res.groups.find((x) => x.groupId === group) ?? res.groups[0];
    if (!g || g.errorCode === GROUP_ID_NOT_FOUND) return null;
    if (g.errorCode !== 0) throw new KafkaClientError(`ConsumerGroupDescribe for group ${group} failed: ${errorName(g.errorCode)}${g.errorMessage ? ` (${g.errorMessage})` : ''}`);
    // Partitions of topics the response names only by id are named through Metadata.
    const unnamed = g.members.some((m) => [m.assignment, m.targetAssignment].some((a) => a.topicPartitions.some((tp) => tp.topicName === '')));
    const names = unnamed ? await this.topicNamesById() : new Map<string, string>();
    const partitions = (a: { topicPartitions: Array<{ topicId: string; topicName: string; partitions: number[] }> }): Array<{ topic: string; partition: number }> => {
      const out: Array<{ topic: string; partition: number }> = [];
      const seen = new Set<string>();
      for (const tp of a.topicPartitions) {
        const topic = tp.topicName !== '' ? tp.topicName : names.get(tp.topicId);
        if (topic === undefined) continue; // a deleted topic: Kafka's admin client cannot name it either
        for (const p of tp.partitions) {
          const k = tpKey(topic, p);
          if (seen.has(k)) continue;
          seen.add(k);
          out.push({ topic, partition: p });
        }
      }
      return out;
    };
    return {
      group,
      type: 'consumer',
      state: groupStateName(g.groupState),
      protocolType: 'consumer',
      protocolData: g.assignorName,
      coordinator,
      groupEpoch: g.groupEpoch,
      targetAssignmentEpoch: g.assignmentEpoch,
      members: g.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.instanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        assignment: partitions(m.assignment),
        targetAssignment: partitions(m.targetAssignment),
        memberEpoch: m.memberEpoch,
        upgraded: m.memberType === MEMBER_TYPE_CONSUMER ? true : m.memberType === MEMBER_TYPE_CLASSIC ? false : null,
      })),
    };
  }

  private readonly versionsByClient = new Map<KafkaClient, Map<number, { min: number; max: number }>>();

  /** ApiVersions v3 of one connection (cached). */
  private async apiVersions(client: KafkaClient): Promise<Map<number, { min: number; max: number }>> {
    let v = this.versionsByClient.get(client);
    if (!v) {
      const res = await client.send(18, 3, { clientSoftwareName: 'kafka-mock-coordinator-groups', clientSoftwareVersion: '1' });
      if (res.errorCode !== 0) throw new KafkaClientError(`ApiVersions failed: ${errorName(res.errorCode)}`);
      v = new Map(res.apiKeys.map((k) => [k.apiKey, { min: k.minVersion, max: k.maxVersion }]));
      this.versionsByClient.set(client, v);
    }
    return v;
  }

  /** Metadata v12 (all topics): topic id -> name. */
  async topicNamesById(): Promise<Map<string, string>> {
    const res = await this.bootstrap.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    const out = new Map<string, string>();
    for (const t of res.topics) if (t.name !== null && t.errorCode === 0) out.set(t.topicId, t.name);
    return out;
  }

  /** OffsetFetch v7 (all partitions): committed offset (null = none) and leader epoch (null = none) per partition. */
  async committedOffsets(group: string, coordinator: { host: string; port: number }): Promise<Map<string, { topic: string; partition: number; offset: bigint | null; leaderEpoch: number | null }>> {
    const client = await this.clientFor(coordinator);
    const res = await client.send(9, 7, { groupId: group, topics: null, groups: [], requireStable: false });
    if (res.errorCode !== 0) throw new KafkaClientError(`OffsetFetch for group ${group} failed: ${errorName(res.errorCode)}`);
    const out = new Map<string, { topic: string; partition: number; offset: bigint | null; leaderEpoch: number | null }>();
    for (const t of res.topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== 0) continue;
        out.set(`${t.name}\u0000${p.partitionIndex}`, {
          topic: t.name,
          partition: p.partitionIndex,
          offset: p.committedOffset < 0n ? null : p.committedOffset,
          leaderEpoch: p.committedOffset < 0n || p.committedLeaderEpoch < 0 ? null : p.committedLeaderEpoch,
        });
      }
    }
    return out;
  }

  /** ListOffsets v6, latest, read_uncommitted: log-end offset per partition (null = unknown). */
  async logEndOffsets(partitions: Array<{ topic: string; partition: number }>): Promise<Map<string, bigint | null>> {
    const out = new Map<string, bigint | null>();
    if (partitions.length === 0) return out;
    const byTopic = new Map<string, number[]>();
    for (const tp of partitions) {
      const l = byTopic.get(tp.topic) ?? [];
      if (!l.includes(tp.partition)) l.push(tp.partition);
      byTopic.set(tp.topic, l);
    }
    // ListOffsets goes to each partition's leader (one request per leader), as Kafka's admin client does.
    const metadata = await this.bootstrap.send(3, 1, { topics: [...byTopic.keys()].map((name) => ({ name, topicId: '' })), allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    const nodes = new Map(metadata.brokers.map((b) => [b.nodeId, { host: b.host, port: b.port }]));
    const byLeader = new Map<number, Map<string, number[]>>();
    for (const [name, ps] of byTopic) {
      const described = metadata.topics.find((t) => t.name === name);
      for (const p of ps) {
        const leader = described?.partitions.find((x) => x.partitionIndex === p)?.leaderId ?? -1;
        const topics = byLeader.get(leader) ?? new Map<string, number[]>();
        topics.set(name, [...(topics.get(name) ?? []), p]);
        byLeader.set(leader, topics);
      }
    }
    const responses = await Promise.all([...byLeader].map(async ([leader, topics]) => {
      const node = nodes.get(leader);
      const client = node ? await this.clientFor(node) : this.bootstrap;
      return client.send(2, 6, {
        replicaId: -1,
        isolationLevel: 0,
        timeoutMs: 0,
        topics: [...topics.entries()].map(([name, ps]) => ({
          name,
          partitions: ps.map((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp: -1n })),
        })),
      });
    }));
    for (const t of responses.flatMap((r) => r.topics)) {
      for (const p of t.partitions) out.set(`${t.name}\u0000${p.partitionIndex}`, p.errorCode === 0 ? p.offset : null);
    }
    return out;
  }

  /** ListGroups v4 on every broker (each lists the groups it coordinates): consumer groups (protocol type `consumer` or empty), in broker then server order. */
  async listConsumerGroups(): Promise<string[]> {
    return this.listGroupsOfTypes([], (protocolType) => protocolType === 'consumer' || protocolType === '');
  }

  /** ListGroups v5 (types filter: `share`, `consumer`, `classic`; [] = all) on every broker: the ids `keep` accepts by protocol type, in broker then server order. */
  async listGroupsOfTypes(typesFilter: string[], keep: (protocolType: string) => boolean): Promise<string[]> {
    const metadata = await this.bootstrap.send(3, 1, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    const brokers = metadata.brokers.length > 0 ? [...metadata.brokers].sort((a, b) => a.nodeId - b.nodeId) : [{ host: this.bootstrap.host, port: this.bootstrap.port }];
    const out: string[] = [];
    for (const broker of brokers) {
      const client = await this.clientFor({ host: broker.host, port: broker.port });
      const res = await client.send(16, typesFilter.length > 0 ? 5 : 4, { statesFilter: [], typesFilter });
      if (res.errorCode !== 0) throw new KafkaClientError(`ListGroups failed: ${errorName(res.errorCode)}`);
      for (const g of res.groups) if (keep(g.protocolType) && !out.includes(g.groupId)) out.push(g.groupId);
    }
    return out;
  }
}

const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/** Kafka's `collectGroupsOffsets` for one group: rows of assigned partitions, then of other committed ones. */
export async function collectGroupOffsets(session: GroupsSession, d: GroupDescription): Promise<PartitionRow[]> {
  const committed = await session.committedOffsets(d.group, d.coordinator);
  const withAssignment = d.members
    .map((m, i) => ({ m, i }))
    .filter(({ m }) => m.assignment.length > 0)
    .sort((a, b) => b.m.assignment.length - a.m.assignment.length || a.i - b.i)
    .map(({ m }) => m);
  const assigned = new Set<string>();
  const all: Array<{ topic: string; partition: number }> = [];
  for (const m of withAssignment) for (const tp of m.assignment) { assigned.add(tpKey(tp.topic, tp.partition)); all.push(tp); }
  const unassigned = [...committed.values()].filter((c) => !assigned.has(tpKey(c.topic, c.partition)));
  all.push(...unassigned);
  const leo = await session.logEndOffsets(all);

  const sortRows = (rows: PartitionRow[]): PartitionRow[] =>
    rows.sort((a, b) => ((a.topic ?? '') < (b.topic ?? '') ? -1 : (a.topic ?? '') > (b.topic ?? '') ? 1 : (a.partition ?? -1) - (b.partition ?? -1)));
  const row = (tp: { topic: string; partition: number }, consumerId: string, host: string, clientId: string): PartitionRow => {
    const c = committed.get(tpKey(tp.topic, tp.partition));
    return {
      group: d.group,
      topic: tp.topic,
      partition: tp.partition,
      offset: c?.offset ?? null,
      leaderEpoch: c?.leaderEpoch ?? null,
      logEndOffset: leo.get(tpKey(tp.topic, tp.partition)) ?? null,
      consumerId,
      host,
      clientId,
    };
  };
  const rows: PartitionRow[] = [];
  for (const m of withAssignment) rows.push(...sortRows(m.assignment.map((tp) => row(tp, m.memberId, m.clientHost, m.clientId))));
  rows.push(...sortRows(unassigned.map((tp) => row(tp, MISSING, MISSING, MISSING))));
  return rows;
}

/** Kafka's `collectGroupsMembers`: the target epoch of every member is the group's target assignment epoch. */
export function memberRows(d: GroupDescription): MemberRow[] {
  return d.members.map((m) => ({
    group: d.group,
    consumerId: m.memberId,
    host: m.clientHost,
    clientId: m.clientId,
    groupInstanceId: m.groupInstanceId ?? '',
    assignment: m.assignment,
    targetAssignment: m.targetAssignment,
    currentEpoch: m.memberEpoch,
    targetEpoch: d.targetAssignmentEpoch,
    upgraded: m.upgraded,
  }));
}

export interface DescribeOptions extends GroupsOptions {
  groups: string[];
  members?: boolean;
  state?: boolean;
  offsets?: boolean;
  verbose?: boolean;
}

/** `--describe`: groups in sorted order (Kafka's TreeMap), one section each. */
export async function describeGroups(options: DescribeOptions): Promise<CommandOutput> {
  const out = new Output();
  let session: GroupsSession | null = null;
  try {
    session = await GroupsSession.open(options);
    const groups = [...new Set(options.groups)].sort();
    const descriptions: GroupDescription[] = [];
    for (const g of groups) descriptions.push(await session.describeGroup(g));
    const verbose = options.verbose ?? false;
    const mode = options.offsets || (!options.members && !options.state) ? 'offsets' : options.members ? 'members' : 'state';
    for (const d of descriptions) {
      if (mode === 'offsets') formatOffsets(d.group, d.state, await collectGroupOffsets(session, d), verbose, out);
      else if (mode === 'members') formatMembers(d.group, d.state, memberRows(d), verbose, out);
      else {
        formatState(
          {
            group: d.group,
            coordinator: d.coordinator,
            assignmentStrategy: d.protocolData,
            state: d.state,
            numMembers: d.members.length,
            groupEpoch: d.groupEpoch,
            targetAssignmentEpoch: d.targetAssignmentEpoch,
          },
          verbose,
          out,
        );
      }
    }
  } catch (err) {
    out.error(`Executing consumer group command failed due to ${(err as Error).message}`);
    out.exitCode = 1;
  } finally {
    session?.close();
  }
  return out.result();
}

/** `--list`: one group id per line. */
export async function listGroups(options: GroupsOptions): Promise<CommandOutput> {
  const out = new Output();
  let session: GroupsSession | null = null;
  try {
    session = await GroupsSession.open(options);
    for (const g of await session.listConsumerGroups()) out.stdout += g + '\n';
  } catch (err) {
    out.error(`Executing consumer group command failed due to ${(err as Error).message}`);
    out.exitCode = 1;
  } finally {
    session?.close();
  }
  return out.result();
}
