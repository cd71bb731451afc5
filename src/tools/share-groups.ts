/**
 * `kafka-mock-coordinator share-groups ...`: a look-alike of Kafka 4.3's `kafka-share-groups.sh`
 * (`org.apache.kafka.tools.consumer.group.ShareGroupCommand`) for its read-only commands:
 * `--list` and `--describe --group G [--members | --state | --offsets] [--verbose]`, over the
 * wire: ListGroups v5 (types filter `share`), FindCoordinator, ShareGroupDescribe v1 and
 * DescribeShareGroupOffsets v1 (start offset, leader epoch and lag per partition, KIP-1226).
 *
 * As in Kafka, every group is described before anything is printed; a group the coordinator does
 * not know as a share group (GROUP_ID_NOT_FOUND, which also covers a group of another type) fails
 * the whole command: `Error: Executing share group command failed due to <exception>: <message>`
 * on stdout and, where Kafka prints the stack trace, its first line
 * (`java.util.concurrent.ExecutionException: <exception>: <message>`) on stderr. The exit code is
 * 0 even then: Kafka 4.3.1's `ShareGroupCommand.run` catches every failure and returns normally.
 */
import { GroupsSession, errorName, GROUP_ID_NOT_FOUND, assignmentString, type GroupsOptions } from './consumer-groups.js';
import { KafkaClientError } from './kafka-client.js';
import { MISSING, Output, groupStateName, left, type CommandOutput } from './tool-output.js';

/** What ShareGroupCommand prints of a share group (Kafka's `ShareGroupDescription`). */
export interface ShareGroupDescription {
  group: string;
  state: string;
  coordinator: { host: string; port: number; id: number };
  groupEpoch: number;
  targetAssignmentEpoch: number;
  members: Array<{ memberId: string; clientId: string; clientHost: string; memberEpoch: number; assignment: Array<{ topic: string; partition: number }> }>;
}

/** One row of `--describe --offsets` (Kafka's `SharePartitionOffsetInformation`); null = `-`. */
export interface ShareOffsetRow {
  topic: string;
  partition: number;
  startOffset: bigint | null;
  leaderEpoch: number | null;
  lag: bigint | null;
}

/** The Java exception Kafka's admin client raises for an error code (`Errors.exception()`), as `toString()` names it. */
const EXCEPTION_NAMES: Record<number, string> = {
  [GROUP_ID_NOT_FOUND]: 'org.apache.kafka.common.errors.GroupIdNotFoundException',
  24: 'org.apache.kafka.common.errors.InvalidGroupIdException',
  30: 'org.apache.kafka.common.errors.GroupAuthorizationException',
  15: 'org.apache.kafka.common.errors.CoordinatorNotAvailableException',
};

/** A failed admin call as ShareGroupCommand reports it (an `ExecutionException` wrapping Kafka's exception). */
class AdminCallError extends KafkaClientError {
  constructor(code: number, message: string | null) {
    const name = EXCEPTION_NAMES[code];
    super(name ? `${name}: ${message ?? ''}` : errorName(code));
  }
}

/** A GroupsSession that also speaks the share-group APIs. */
export class ShareGroupsSession extends GroupsSession {
  /** ListGroups v5 with the `share` type filter (Kafka's `ListGroupsOptions.forShareGroups()`). */
  listShareGroups(): Promise<string[]> {
    return this.listGroupsOfTypes(['share'], () => true);
  }

  /** ShareGroupDescribe v1 on the coordinator; topics named only by id are named through Metadata. */
  async describeShareGroup(group: string): Promise<ShareGroupDescription> {
    const { coordinator, described: g } = await this.describeOnCoordinator(group, 'ShareGroupDescribe', async (c) =>
      (await c.send(77, 1, { groupIds: [group], includeAuthorizedOperations: false })).groups);
    if (g.errorCode !== 0) throw new AdminCallError(g.errorCode, g.errorMessage);
    const unnamed = g.members.some((m) => m.assignment.topicPartitions.some((tp) => tp.topicName === ''));
    const names = unnamed ? await this.topicNamesById() : new Map<string, string>();
    return {
      group,
      state: groupStateName(g.groupState),
      coordinator,
      groupEpoch: g.groupEpoch,
      targetAssignmentEpoch: g.assignmentEpoch,
      members: g.members.map((m) => ({
        memberId: m.memberId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        memberEpoch: m.memberEpoch,
        assignment: m.assignment.topicPartitions.flatMap((tp) => {
          const topic = tp.topicName !== '' ? tp.topicName : names.get(tp.topicId);
          return topic === undefined ? [] : [...new Set(tp.partitions)].map((partition) => ({ topic, partition }));
        }),
      })),
    };
  }

  /**
   * DescribeShareGroupOffsets v1 (all topics) on the coordinator: a row per partition the share
   * coordinator holds state for (a partition answered with an error is left out, as Kafka's
   * ListShareGroupOffsetsHandler does); -1 (no start offset, leader epoch or lag) reads as null,
   * and a partition without a start offset has none of the three (Kafka's admin client maps it to null).
   */
  async shareGroupOffsets(d: ShareGroupDescription): Promise<ShareOffsetRow[]> {
    const client = await this.clientFor(d.coordinator);
    const res = await client.send(90, 1, { groups: [{ groupId: d.group, topics: null }] });
    const g = res.groups[0];
    if (!g) throw new KafkaClientError(`DescribeShareGroupOffsets returned no group ${d.group}`);
    if (g.errorCode !== 0) throw new AdminCallError(g.errorCode, g.errorMessage);
    const rows: ShareOffsetRow[] = [];
    for (const t of g.topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== 0) continue; // Kafka's admin client skips (logs) a partition that failed
        const known = p.startOffset >= 0n;
        rows.push({
          topic: t.topicName,
          partition: p.partitionIndex,
          startOffset: known ? p.startOffset : null,
          leaderEpoch: known && p.leaderEpoch >= 0 ? p.leaderEpoch : null,
          lag: known && p.lag >= 0n ? p.lag : null,
        });
      }
    }
    return rows;
  }
}

/** Kafka's `maybePrintEmptyGroupState`: prints the state remark; whether rows follow. */
function maybePrintEmptyGroupState(out: Output, group: string, state: string, numRows: number): boolean {
  if (state === 'Dead') out.error(`Share group '${group}' does not exist.`);
  else if (state === 'Empty') out.stderr += `\nShare group '${group}' has no active members.\n`;
  return state !== 'Dead' && numRows > 0;
}

const str = (v: bigint | number | null): string => (v === null ? MISSING : String(v));

/** `printOffsets` for one group: rows sorted by topic then partition. */
export function formatShareOffsets(group: string, rows: ShareOffsetRow[], verbose: boolean, out = new Output()): CommandOutput {
  if (rows.length === 0) {
    out.stdout += `\nShare group '${group}' has no offset information.\n`;
    return out.result();
  }
  const sorted = [...rows].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  const g = Math.max(15, group.length);
  const t = Math.max(15, ...sorted.map((r) => r.topic.length));
  const line = (v: string[]): string =>
    verbose ? `\n${left(v[0]!, g)} ${left(v[1]!, t)} ${left(v[2]!, 10)} ${left(v[3]!, 13)} ${left(v[4]!, 13)} ${v[5]!}` : `\n${left(v[0]!, g)} ${left(v[1]!, t)} ${left(v[2]!, 10)} ${left(v[3]!, 13)} ${v[4]!}`;
  out.stdout += verbose ? line(['GROUP', 'TOPIC', 'PARTITION', 'LEADER-EPOCH', 'START-OFFSET', 'LAG']) : line(['GROUP', 'TOPIC', 'PARTITION', 'START-OFFSET', 'LAG']);
  for (const r of sorted) {
    out.stdout += verbose
      ? line([group, r.topic, String(r.partition), str(r.leaderEpoch), str(r.startOffset), str(r.lag)])
      : line([group, r.topic, String(r.partition), str(r.startOffset), str(r.lag)]);
  }
  out.stdout += '\n';
  return out.result();
}

/** `printMembers` for one group: members sorted by id; ASSIGNMENT `topic:0,1;topic2:0` ("" when none). */
export function formatShareMembers(d: ShareGroupDescription, verbose: boolean, out = new Output()): CommandOutput {
  if (!maybePrintEmptyGroupState(out, d.group, d.state, d.members.length)) return out.result();
  const members = [...d.members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
  const g = Math.max(15, d.group.length);
  const c = Math.max(15, ...members.map((m) => m.memberId.length));
  const h = Math.max(15, ...members.map((m) => m.clientHost.length));
  const cl = Math.max(15, ...members.map((m) => m.clientId.length));
  const line = (v: string[]): string =>
    `\n${left(v[0]!, g)} ${left(v[1]!, c)} ${left(v[2]!, h)} ${left(v[3]!, cl)} ${left(v[4]!, 12)} ` + (verbose ? `${left(v[5]!, 13)} ${v[6]!}` : v[5]!);
  out.stdout += verbose
    ? line(['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'MEMBER-EPOCH', 'ASSIGNMENT'])
    : line(['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'ASSIGNMENT']);
  for (const m of members) {
    const head = [d.group, m.memberId, m.clientHost, m.clientId, String(m.assignment.length)];
    out.stdout += line(verbose ? [...head, String(m.memberEpoch), assignmentString(m.assignment)] : [...head, assignmentString(m.assignment)]);
  }
  out.stdout += '\n';
  return out.result();
}

/** `printStates` for one group (printed whatever the state, after the state remark). */
export function formatShareState(d: ShareGroupDescription, verbose: boolean, out = new Output()): CommandOutput {
  maybePrintEmptyGroupState(out, d.group, d.state, 1);
  const g = Math.max(15, d.group.length);
  const coordinator = `${d.coordinator.host}:${d.coordinator.port}  (${d.coordinator.id})`;
  const co = Math.max(25, coordinator.length);
  const line = (v: string[]): string =>
    `\n${left(v[0]!, g)} ${left(v[1]!, co)} ${left(v[2]!, 15)} ` + (verbose ? `${left(v[3]!, 12)} ${left(v[4]!, 17)} ${v[5]!}` : v[3]!);
  out.stdout += verbose
    ? line(['GROUP', 'COORDINATOR (ID)', 'STATE', 'GROUP-EPOCH', 'ASSIGNMENT-EPOCH', '#MEMBERS'])
    : line(['GROUP', 'COORDINATOR (ID)', 'STATE', '#MEMBERS']);
  const n = String(d.members.length);
  out.stdout += verbose ? line([d.group, coordinator, d.state, String(d.groupEpoch), String(d.targetAssignmentEpoch), n]) : line([d.group, coordinator, d.state, n]);
  out.stdout += '\n';
  return out.result();
}

export interface ShareDescribeOptions extends GroupsOptions {
  groups: string[];
  members?: boolean;
  state?: boolean;
  verbose?: boolean;
}

/** Runs one command as ShareGroupCommand's `run` does: a failure prints `Error: ...` (exit code 0, as Kafka's). */
async function command(options: GroupsOptions, body: (session: ShareGroupsSession, out: Output) => Promise<void>): Promise<CommandOutput> {
  const out = new Output();
  let session: ShareGroupsSession | null = null;
  try {
    session = await ShareGroupsSession.open(options);
    await body(session, out);
  } catch (err) {
    const message = (err as Error).message;
    out.error(`Executing share group command failed due to ${message}`);
    if (err instanceof AdminCallError) out.stderr += `java.util.concurrent.ExecutionException: ${message}\n`;
  } finally {
    session?.close();
  }
  return out.result();
}

/** `--describe`: every group described first (sorted, Kafka's TreeMap), then one section each; `--members` wins over `--state`, offsets otherwise. */
export function describeShareGroups(options: ShareDescribeOptions): Promise<CommandOutput> {
  return command(options, async (session, out) => {
    const verbose = options.verbose ?? false;
    const descriptions: ShareGroupDescription[] = [];
    for (const g of [...new Set(options.groups)].sort()) descriptions.push(await session.describeShareGroup(g));
    if (options.members) for (const d of descriptions) formatShareMembers(d, verbose, out);
    else if (options.state) for (const d of descriptions) formatShareState(d, verbose, out);
    else {
      const offsets: ShareOffsetRow[][] = [];
      for (const d of descriptions) offsets.push(await session.shareGroupOffsets(d));
      descriptions.forEach((d, i) => formatShareOffsets(d.group, offsets[i]!, verbose, out));
    }
  });
}

/** `--list`: one share group id per line. */
export function listShareGroups(options: GroupsOptions): Promise<CommandOutput> {
  return command(options, async (session, out) => {
    for (const g of await session.listShareGroups()) out.stdout += g + '\n';
  });
}
