import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { formatOffsets, formatMembers, formatState, assignmentString, describeGroups, listGroups, type PartitionRow } from '../../src/tools/consumer-groups.js';
import { startTestServer } from '../support/server.js';
import { kafkaClient, groupConsumer, waitFor } from '../support/kafkajs.js';
import { KIP848_CONFIG, rawTwoMemberGroup } from '../support/kip848-group.js';

const row = (group: string, partition: number, offset: bigint, leo: bigint, member?: [string, string, string]): PartitionRow => ({
  group, topic: 'b1.offsets.demo', partition, offset, logEndOffset: leo, leaderEpoch: null,
  consumerId: member?.[0] ?? '-', host: member?.[1] ?? '-', clientId: member?.[2] ?? '-',
});

describe('groups: formats', () => {
  it('prints an Empty group as kafka-consumer-groups.sh --describe does (TOOL-OUTPUTS.md)', () => {
    const res = formatOffsets('b1.pos.group', 'Empty', [row('b1.pos.group', 0, 6n, 6n), row('b1.pos.group', 1, 4n, 12n), row('b1.pos.group', 2, 0n, 12n)], false);
    expect(res.stderr).toBe("\nConsumer group 'b1.pos.group' has no active members.\n");
    expect(res.stdout).toBe(
      '\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID' +
        '\nb1.pos.group    b1.offsets.demo 0          6               6               0               -               -               -' +
        '\nb1.pos.group    b1.offsets.demo 1          4               12              8               -               -               -' +
        '\nb1.pos.group    b1.offsets.demo 2          0               12              12              -               -               -' +
        '\n',
    );
  });

  it('widens columns to the longest value and prints LEADER-EPOCH with --verbose', () => {
    const id = 'consumer-1-0123456789abcdef0123456789';
    const r = { ...row('g', 0, 3n, 5n, [id, '/127.0.0.1', 'consumer-1']), leaderEpoch: 0 };
    const res = formatOffsets('g', 'Stable', [r, { ...row('g', 1, 0n, 0n), offset: null, logEndOffset: 2n }], true);
    expect(res.stderr).toBe('');
    const pad = (s: string, n: number): string => s.padEnd(n);
    expect(res.stdout).toBe(
      `\n${pad('GROUP', 15)} ${pad('TOPIC', 15)} ${pad('PARTITION', 10)} ${pad('LEADER-EPOCH', 15)} ${pad('CURRENT-OFFSET', 15)} ${pad('LOG-END-OFFSET', 15)} ${pad('LAG', 15)} ${pad('CONSUMER-ID', id.length)} ${pad('HOST', 15)} CLIENT-ID` +
        `\n${pad('g', 15)} b1.offsets.demo ${pad('0', 10)} ${pad('0', 15)} ${pad('3', 15)} ${pad('5', 15)} ${pad('2', 15)} ${id} ${pad('/127.0.0.1', 15)} consumer-1` +
        `\n${pad('g', 15)} b1.offsets.demo ${pad('1', 10)} ${pad('-', 15)} ${pad('-', 15)} ${pad('2', 15)} ${pad('-', 15)} ${pad('-', id.length)} ${pad('-', 15)} -` +
        '\n',
    );
  });

  it('prints "does not exist" for a Dead group and nothing else', () => {
    expect(formatOffsets('nope', 'Dead', [], false)).toEqual({ stdout: "\nError: Consumer group 'nope' does not exist.\n", stderr: '', exitCode: 0 });
  });

  it('adds UPGRADED to --members --verbose while classic and consumer members mix in a consumer group', () => {
    const base = { group: 'g', host: '/h', clientId: 'c', groupInstanceId: '', targetAssignment: [{ topic: 't', partition: 0 }], currentEpoch: 5, targetEpoch: 6 };
    const rows = [
      { ...base, consumerId: 'new', assignment: [{ topic: 't', partition: 0 }], upgraded: true },
      { ...base, consumerId: 'old', assignment: [], targetAssignment: [], upgraded: false },
    ];
    expect(formatMembers('g', 'Reconciling', rows, true)).toEqual({
      stderr: "\nWarning: Consumer group 'g' is rebalancing.\n",
      stdout:
        '\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT    UPGRADED\n' +
        'g               new             /h              c               1               5               t:0                  6               t:0                  true\n' +
        'g               old             /h              c               0               5               -                    6               -                    false\n',
      exitCode: 0,
    });
  });

  it('prints --members [--verbose] and --state as Kafka', () => {
    const m = {
      group: 'g', consumerId: 'c-1', host: '/127.0.0.1', clientId: 'cid', groupInstanceId: '',
      assignment: [{ topic: 't2', partition: 1 }, { topic: 't1', partition: 2 }, { topic: 't1', partition: 0 }],
      targetAssignment: [], currentEpoch: null, targetEpoch: null, upgraded: null,
    };
    expect(assignmentString(m.assignment)).toBe('t1:0,2;t2:1');
    expect(formatMembers('g', 'Stable', [m], false).stdout).toBe(
      '\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n' +
        'g               c-1             /127.0.0.1      cid             3               \n',
    );
    expect(formatMembers('g', 'Stable', [{ ...m, groupInstanceId: 'static-1' }], true).stdout).toBe(
      '\nGROUP           CONSUMER-ID     GROUP-INSTANCE-ID HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT   \n' +
        'g               c-1             static-1          /127.0.0.1      cid             3               -               t1:0,2;t2:1          -               -                   \n',
    );
    const empty = formatMembers('g', 'Empty', [], false);
    expect(empty.stderr).toBe("\nConsumer group 'g' has no active members.\n");
    expect(empty.stdout).toBe('\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n');

    const state = formatState({ group: 'b1.proto.range.group', coordinator: { host: '127.0.0.1', port: 9092, id: 1 }, assignmentStrategy: 'uniform', state: 'Empty', numMembers: 0, groupEpoch: null, targetAssignmentEpoch: null }, false);
    expect(state.stdout).toBe(
      '\nGROUP                COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS' +
        '\nb1.proto.range.group 127.0.0.1:9092  (1)       uniform              Empty                0\n',
    );
    expect(formatState({ group: 'g', coordinator: { host: 'h', port: 1, id: 0 }, assignmentStrategy: '', state: 'Stable', numMembers: 2, groupEpoch: null, targetAssignmentEpoch: null }, true).stdout).toBe(
      '\nGROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS' +
        '\ng               h:1  (0)                  -                    Stable               -               -                         2\n',
    );
  });
});

describe('groups: against a running server', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ config: { 'num.partitions': '3' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('describes a Stable classic group, then the Empty group it leaves, and lists it', async () => {
    const kafka = kafkaClient(server.bootstrap, 'groups-tool-test');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'gt.demo', numPartitions: 3 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'gt.demo', messages: Array.from({ length: 12 }, (_, i) => ({ partition: i % 3, value: `m${i}` })) });
    await producer.disconnect();

    const consumer = groupConsumer(kafka, 'gt.group');
    let seen = 0;
    await consumer.connect();
    await consumer.subscribe({ topic: 'gt.demo', fromBeginning: true });
    await consumer.run({ eachMessage: async () => { seen++; } });
    await waitFor(() => seen >= 12, 30000, 'all messages');
    await consumer.commitOffsets([{ topic: 'gt.demo', partition: 0, offset: '4' }, { topic: 'gt.demo', partition: 1, offset: '1' }, { topic: 'gt.demo', partition: 2, offset: '4' }]);

    const stable = await describeGroups({ bootstrapServer: server.bootstrap, groups: ['gt.group'] });
    expect(stable.exitCode).toBe(0);
    expect(stable.stderr).toBe('');
    const lines = stable.stdout.split('\n');
    expect(lines[0]).toBe('');
    expect(lines[1]).toMatch(/^GROUP {11}TOPIC {11}PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG {13}CONSUMER-ID +HOST +CLIENT-ID$/);
    const memberHost = expect.stringMatching(/^\/(::ffff:)?127\.0\.0\.1$/);
    expect(lines.slice(2, 5).map((l) => l.split(/ +/))).toEqual([
      ['gt.group', 'gt.demo', '0', '4', '4', '0', expect.stringMatching(/^groups-tool-test-/), memberHost, 'groups-tool-test'],
      ['gt.group', 'gt.demo', '1', '1', '4', '3', expect.stringMatching(/^groups-tool-test-/), memberHost, 'groups-tool-test'],
      ['gt.group', 'gt.demo', '2', '4', '4', '0', expect.stringMatching(/^groups-tool-test-/), memberHost, 'groups-tool-test'],
    ]);
    // Column widths follow the longest consumer id and host (ConsumerGroupCommand.printOffsetFormat).
    const idLen = lines[2]!.split(/ +/)[6]!.length;
    const hostLen = Math.max(15, lines[2]!.split(/ +/)[7]!.length);
    expect(lines[1]!.indexOf('HOST')).toBe(16 + 16 + 11 + 16 * 3 + idLen + 1);
    expect(lines[1]!.indexOf('CLIENT-ID')).toBe(16 + 16 + 11 + 16 * 3 + idLen + 1 + hostLen + 1);

    const members = await describeGroups({ bootstrapServer: server.bootstrap, groups: ['gt.group'], members: true, verbose: true });
    expect(members.stdout).toMatch(/^\nGROUP {11}CONSUMER-ID +HOST +CLIENT-ID {8}#PARTITIONS {5}CURRENT-EPOCH {3}CURRENT-ASSIGNMENT {3}TARGET-EPOCH {4}TARGET-ASSIGNMENT {3}\n/);
    expect(members.stdout).toMatch(/\ngt\.group {8}groups-tool-test-\S+ \/(::ffff:)?127\.0\.0\.1 +groups-tool-test 3 {15}- {15}gt\.demo:0,1,2 {8}- {15}- {19}\n$/);

    const state = await describeGroups({ bootstrapServer: server.bootstrap, groups: ['gt.group'], state: true });
    const [host, port] = server.bootstrap.split(':');
    expect(state.stdout).toMatch(new RegExp(`\\ngt\\.group {8}${host!.replace(/\./g, '\\.')}:${port}  \\(\\d+\\) +(range|roundrobin|RoundRobinAssigner|RoundRobin)? *Stable {15}1\\n$`));

    expect((await listGroups({ bootstrapServer: server.bootstrap })).stdout.split('\n')).toContain('gt.group');

    await consumer.disconnect();
    const empty = await describeGroups({ bootstrapServer: server.bootstrap, groups: ['gt.group'] });
    expect(empty.stderr).toBe("\nConsumer group 'gt.group' has no active members.\n");
    expect(empty.stdout).toBe(
      '\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID' +
        '\ngt.group        gt.demo         0          4               4               0               -               -               -' +
        '\ngt.group        gt.demo         1          1               4               3               -               -               -' +
        '\ngt.group        gt.demo         2          4               4               0               -               -               -' +
        '\n',
    );
    const gone = await describeGroups({ bootstrapServer: server.bootstrap, groups: ['never.seen'] });
    expect(gone.stdout).toBe("\nError: Consumer group 'never.seen' does not exist.\n");
  });

  it('runs as `kafka-mock-coordinator groups` from the built command line', async () => {
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    // Asynchronous: the server runs in this process.
    const res = await promisify(execFile)(process.execPath, [cli, 'groups', '--bootstrap-server', server.bootstrap, '--describe', '--group', 'never.seen', '--state'], { encoding: 'utf8', timeout: 20000 });
    expect(res.stderr).toBe('');
    expect(res.stdout).toBe("\nError: Consumer group 'never.seen' does not exist.\n");
    const listed = await promisify(execFile)(process.execPath, [cli, 'groups', '--bootstrap-server', server.bootstrap, '--list'], { encoding: 'utf8', timeout: 20000 });
    expect(listed.stdout.split('\n')).toContain('gt.group');
  });
});

describe('groups: a KIP-848 consumer group (ConsumerGroupDescribe)', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ config: KIP848_CONFIG });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('describes it with --describe, --members [--verbose] and --state [--verbose] as kafka-consumer-groups.sh does', async () => {
    server.broker.topics.create('kt.demo', 3);
    const producer = kafkaClient(server.bootstrap, 'kt-producer').producer();
    await producer.connect();
    await producer.send({ topic: 'kt.demo', messages: Array.from({ length: 12 }, (_, i) => ({ partition: i % 3, value: `m${i}` })) });
    await producer.disconnect();

    const a = 'kt-member-a-0000000000';
    const b = 'kt-member-b-0000000000';
    const group = await rawTwoMemberGroup(server, 'kt.group', 'kt.demo', [a, b]);
    try {
      // DescribeGroups reports the group as Dead: the tool falls back to ConsumerGroupDescribe.
      const viaDescribeGroups = await group.client.send(15, 5, { groups: ['kt.group'], includeAuthorizedOperations: false });
      expect(viaDescribeGroups.groups[0]!.groupState).toBe('Dead');
      const host = (await group.client.send(69, 1, { groupIds: ['kt.group'], includeAuthorizedOperations: false })).groups[0]!.members[0]!.clientHost;
      expect(host).toMatch(/^\/(::ffff:)?127\.0\.0\.1$/);
      const h = host.padEnd(15);
      const run = (o: { members?: boolean; state?: boolean; verbose?: boolean } = {}) => describeGroups({ bootstrapServer: server.bootstrap, groups: ['kt.group'], ...o });

      // B joined: its target (partition 2) is still A's, so the group is Reconciling.
      expect(group.targetB).toEqual([2]);
      const reconciling = await run({ members: true, verbose: true });
      expect(reconciling).toEqual({
        stderr: "\nWarning: Consumer group 'kt.group' is rebalancing.\n",
        stdout:
          '\nGROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT   \n' +
          `kt.group        ${a} ${h} client-a        3               2               kt.demo:0,1,2        3               kt.demo:0,1         \n` +
          `kt.group        ${b} ${h} client-b        0               3               -                    3               kt.demo:2           \n`,
        exitCode: 0,
      });

      await group.settle();
      expect(await group.commit(group.a, 'kt.demo', { 0: 3n, 1: 3n })).toEqual([0, 0]);

      expect(await run()).toEqual({
        stderr: '',
        stdout:
          '\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID            HOST            CLIENT-ID' +
          `\nkt.group        kt.demo         0          3               4               1               ${a} ${h} client-a` +
          `\nkt.group        kt.demo         1          3               4               1               ${a} ${h} client-a` +
          `\nkt.group        kt.demo         2          -               4               -               ${b} ${h} client-b` +
          '\n',
        exitCode: 0,
      });
      expect((await run({ verbose: true })).stdout).toBe(
        '\nGROUP           TOPIC           PARTITION  LEADER-EPOCH    CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID            HOST            CLIENT-ID' +
          `\nkt.group        kt.demo         0          -               3               4               1               ${a} ${h} client-a` +
          `\nkt.group        kt.demo         1          -               3               4               1               ${a} ${h} client-a` +
          `\nkt.group        kt.demo         2          -               -               4               -               ${b} ${h} client-b` +
          '\n',
      );
      expect(await run({ members: true })).toEqual({
        stderr: '',
        stdout:
          '\nGROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS     \n' +
          `kt.group        ${a} ${h} client-a        2               \n` +
          `kt.group        ${b} ${h} client-b        1               \n`,
        exitCode: 0,
      });
      expect((await run({ members: true, verbose: true })).stdout).toBe(
        '\nGROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT   \n' +
          `kt.group        ${a} ${h} client-a        2               3               kt.demo:0,1          3               kt.demo:0,1         \n` +
          `kt.group        ${b} ${h} client-b        1               3               kt.demo:2            3               kt.demo:2           \n`,
      );
      const coordinator = `${server.bootstrap}  (1)`.padEnd(25);
      expect(await run({ state: true })).toEqual({
        stderr: '',
        stdout: '\nGROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS' + `\nkt.group        ${coordinator} uniform              Stable               2\n`,
        exitCode: 0,
      });
      expect((await run({ state: true, verbose: true })).stdout).toBe(
        '\nGROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS' +
          `\nkt.group        ${coordinator} uniform              Stable               3               3                         2\n`,
      );

      // Both members leave: the group is Empty, its committed offsets remain.
      await group.leave();
      expect(await run()).toEqual({
        stderr: "\nConsumer group 'kt.group' has no active members.\n",
        stdout:
          '\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID' +
          '\nkt.group        kt.demo         0          3               4               1               -               -               -' +
          '\nkt.group        kt.demo         1          3               4               1               -               -               -' +
          '\n',
        exitCode: 0,
      });
      expect((await run({ state: true })).stdout).toBe(
        '\nGROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS' + `\nkt.group        ${coordinator} uniform              Empty                0\n`,
      );
      expect((await listGroups({ bootstrapServer: server.bootstrap })).stdout.split('\n')).toContain('kt.group');
    } finally {
      group.close();
    }
  });
});
