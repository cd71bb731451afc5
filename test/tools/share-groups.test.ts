/**
 * `kafka-mock-coordinator share-groups` against Kafka 4.3.1's own `kafka-share-groups.sh`
 * (ShareGroupCommand, run from the jars) on the same server state: a share group `g` whose one
 * member holds all 10 records of `st` (2 partitions, in flight), a share group `g2` whose member
 * left (Empty), a consumer group `cg` and an unknown group. Every view's
 * stdout and exit code are equal byte for byte, and stderr's remarks (Kafka's stack trace after
 * its first line aside). Skipped without Kafka's jars.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients } from '../support/clients.js';
import { startTestServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { SHARE_TEST_CONFIG, shareGroupHolding } from '../support/share-group.js';
import { hb } from '../support/kip848-group.js';
import { describeShareGroups, listShareGroups } from '../../src/tools/share-groups.js';

const LIBS = clients().kafkaLibs;
const run = promisify(execFile);

/** Kafka's tool: stdout, stderr without SLF4J's notices and the stack trace's `\tat` lines, exit code. */
async function kafkaTool(bootstrap: string, args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  const r = await run('java', ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', `${LIBS!}/*`, 'org.apache.kafka.tools.consumer.group.ShareGroupCommand', '--bootstrap-server', bootstrap, ...args], { encoding: 'utf8', timeout: 120_000 }).then(
    (x) => ({ stdout: x.stdout, stderr: x.stderr, exitCode: 0 }),
    (e: { code: number; stdout: string; stderr: string }) => ({ stdout: e.stdout, stderr: e.stderr, exitCode: e.code }),
  );
  const stderr = r.stderr.split('\n').filter((l) => !l.startsWith('SLF4J') && !l.startsWith('\tat ') && !/^\t\.\.\. \d+ more$/.test(l) && !l.startsWith('Caused by: ')).join('\n');
  return { ...r, stderr };
}

describe.skipIf(LIBS === null)("share-groups prints what Kafka's kafka-share-groups.sh prints", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let raw: RawClient;
  let member: string;

  beforeAll(async () => {
    // Manual clock: the member holds its session and its records' acquisition locks however long
    // the JVM tools take (on a loaded machine they took longer than the 45 s session timeout).
    server = await startTestServer({ clock: 'manual', config: SHARE_TEST_CONFIG });
    raw = await RawClient.connect(server.port);
    let topicId: string;
    ({ member, topicId } = await shareGroupHolding(server, raw, 'g', 'st'));
    // Offsets 0 and 1 of partition 0 accepted: the share coordinator now holds start offset 2.
    const ack = await raw.send(79, 2, { groupId: 'g', memberId: member, shareSessionEpoch: 1, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [1] }] }] }] });
    expect(ack.responses[0]!.partitions[0]!.errorCode).toBe(0);
    // g2: a member that joined and left.
    const left = randomUUID();
    expect((await raw.send(76, 1, { groupId: 'g2', memberId: left, memberEpoch: 0, rackId: null, subscribedTopicNames: ['st'] })).errorCode).toBe(0);
    expect((await raw.send(76, 1, { groupId: 'g2', memberId: left, memberEpoch: -1, rackId: null, subscribedTopicNames: null })).errorCode).toBe(0);
    // cg: a consumer group (KIP-848), not a share group.
    expect((await raw.send(68, 0, hb('cg', randomUUID(), 0, { subscribedTopicNames: ['st'], rebalanceTimeoutMs: 30000, topicPartitions: [] }))).errorCode).toBe(0);
  }, 120_000);

  afterAll(async () => {
    raw?.socket.destroy();
    await server?.stop();
  });

  const same = async (args: string[], ours: () => Promise<{ stdout: string; stderr: string; exitCode: number }>): Promise<{ stdout: string; stderr: string; exitCode: number }> => {
    const [theirs, mine] = [await kafkaTool(server.bootstrap, args), await ours()];
    expect(mine).toEqual(theirs);
    return mine;
  };
  const describeArgs = (groups: string[], flags: string[]): string[] => ['--describe', ...groups.flatMap((g) => ['--group', g]), ...flags];
  const ours = (groups: string[], o: { members?: boolean; state?: boolean; verbose?: boolean }) => () => describeShareGroups({ bootstrapServer: server.bootstrap, groups, ...o });

  it('--list: the share groups only', async () => {
    const out = await same(['--list'], () => listShareGroups({ bootstrapServer: server.bootstrap }));
    expect(out.stdout.split('\n').sort()).toEqual(['', 'g', 'g2']);
  }, 120_000);

  it('--describe (offsets) [--verbose]: start offset, leader epoch and lag per partition, dashes where none', async () => {
    const plain = await same(describeArgs(['g2', 'g'], []), ours(['g2', 'g'], {}));
    // g's partition 0 has a start offset (its lag: the records after it not yet acknowledged), the
    // rest are initialized without one; groups print in sorted order.
    expect(plain.stdout).toBe(
      '\nGROUP           TOPIC           PARTITION  START-OFFSET  LAG' +
        '\ng               st              0          0             3' +
        '\ng               st              1          -             -' +
        '\n\nGROUP           TOPIC           PARTITION  START-OFFSET  LAG' +
        '\ng2              st              0          -             -' +
        '\ng2              st              1          -             -\n',
    );
    await same(describeArgs(['g'], ['--offsets', '--verbose']), ours(['g'], { verbose: true }));
  }, 120_000);

  it('--describe --members [--verbose]: the member, its epoch and assignment; g2 has no active members', async () => {
    const plain = await same(describeArgs(['g', 'g2'], ['--members']), ours(['g', 'g2'], { members: true }));
    expect(plain.stdout).toContain(member);
    expect(plain.stdout).toContain('st:0,1');
    expect(plain.stderr).toBe("\nShare group 'g2' has no active members.\n");
    const verbose = await same(describeArgs(['g'], ['--members', '--verbose']), ours(['g'], { members: true, verbose: true }));
    expect(verbose.stdout).toContain('MEMBER-EPOCH');
    // The same from the built command line (`npm run build`).
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const fromCli = await run(process.execPath, [cli, 'share-groups', '--bootstrap-server', server.bootstrap, '--describe', '--group', 'g', '--members', '--verbose'], { encoding: 'utf8' });
    expect(fromCli).toEqual({ stdout: verbose.stdout, stderr: '' });
  }, 120_000);

  it('--describe --state [--verbose]', async () => {
    const plain = await same(describeArgs(['g', 'g2'], ['--state']), ours(['g', 'g2'], { state: true }));
    expect(plain.stdout).toContain('Stable');
    expect(plain.stdout).toContain('Empty');
    await same(describeArgs(['g'], ['--state', '--verbose']), ours(['g'], { state: true, verbose: true }));
  }, 120_000);

  it('an unknown group and a consumer group fail the command (exit code 0, as with Kafka 4.3.1)', async () => {
    const unknown = await same(describeArgs(['nope'], []), ours(['nope'], {}));
    expect(unknown).toEqual({
      stdout: "\nError: Executing share group command failed due to org.apache.kafka.common.errors.GroupIdNotFoundException: Group nope not found.\n",
      stderr: 'java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.GroupIdNotFoundException: Group nope not found.\n',
      exitCode: 0,
    });
    const consumer = await same(describeArgs(['cg'], ['--members']), ours(['cg'], { members: true }));
    expect(consumer.stdout).toContain('GroupIdNotFoundException');
  }, 120_000);
});
