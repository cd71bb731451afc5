/**
 * Validation of KIP-848 subscribed regexes over the raw protocol against a real server. Kafka 4.3
 * compiles a regex only in `maybeUpdateRegularExpressions`, when the member takes a regex no member
 * of the group subscribes to yet (`Utils.throwIfRegularExpressionIsInvalid`, message with RE2J's
 * `PatternSyntaxException.getDescription()`), so every earlier check (group lookup, member epoch)
 * wins over an invalid regex, and a leave ignores the regex.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerHandle } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ConsumerGroupHeartbeatRequest } from '../../src/protocol/messages/ConsumerGroupHeartbeatRequest.js';
import { hb } from '../support/kip848-group.js';

const CONFIG = {
  'group.consumer.session.timeout.ms': 45000,
  'group.consumer.heartbeat.interval.ms': 5000,
  'group.consumer.assignment.interval.ms': 0,
};

const M1 = 'member-one-0000000000a';
const M2 = 'member-two-0000000000b';

function join(groupId: string, memberId: string, extra: Partial<ConsumerGroupHeartbeatRequest>) {
  return hb(groupId, memberId, 0, { rebalanceTimeoutMs: 30000, topicPartitions: [], ...extra });
}

const invalidMessage = (regex: string, description: string) => `SubscribedTopicRegex \`${regex}\` is not a valid regular expression: ${description}.`;

describe('KIP-848 subscribed regex validation (Kafka 4.3 order)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function setup(): Promise<{ server: ServerHandle; c: RawClient }> {
    const { server } = await startClosableServer(cleanups, { config: CONFIG }, 'kmc-cg-regex-');
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    server.broker.topics.create('t', 1);
    return { server, c };
  }

  /** M1 joins group `g` on topic `t` and gets its epoch. */
  async function joined(c: RawClient) {
    const res = await c.send(68, 1, join('g', M1, { subscribedTopicNames: ['t'] }));
    expect(res.errorCode).toBe(ErrorCode.NONE);
    return res.memberEpoch as number;
  }

  it('a wrong member epoch wins over an invalid regex: FENCED_MEMBER_EPOCH', async () => {
    const { c } = await setup();
    await joined(c);
    const res = await c.send(68, 1, hb('g', M1, 99, { subscribedTopicRegex: '(' }));
    expect(res.errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
  });

  it('an unknown group wins over an invalid regex: GROUP_ID_NOT_FOUND', async () => {
    const { c } = await setup();
    const res = await c.send(68, 1, hb('nosuchgroup', M1, 5, { subscribedTopicRegex: '(' }));
    expect(res.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });

  it('a leave (epoch -1) ignores the regex: the member is removed', async () => {
    const { server, c } = await setup();
    await joined(c);
    const res = await c.send(68, 1, hb('g', M1, -1, { subscribedTopicRegex: '(' }));
    expect(res.errorCode).toBe(ErrorCode.NONE);
    expect(res.memberEpoch).toBe(-1);
    expect(server.broker.consumer.group('g')!.members.has(M1)).toBe(false);
  });

  it('a known member taking an invalid regex new to the group: INVALID_REGULAR_EXPRESSION with RE2J description, nothing changes', async () => {
    const { server, c } = await setup();
    const epoch = await joined(c);
    const group = server.broker.consumer.group('g')!;
    const groupEpoch = group.groupEpoch;
    const before = group.members.get(M1)!;

    const res = await c.send(68, 1, hb('g', M1, epoch, { subscribedTopicRegex: 'a*+' }));
    expect(res.errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
    expect(res.errorMessage).toBe(invalidMessage('a*+', 'invalid nested repetition operator'));

    const res2 = await c.send(68, 1, hb('g', M1, epoch, { subscribedTopicRegex: '(' }));
    expect(res2.errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
    expect(res2.errorMessage).toBe(invalidMessage('(', 'missing closing )'));

    // RE2J 1.8 has no "unexpected )": its parser's stack underflows (ERR_INTERNAL_ERROR).
    const res3 = await c.send(68, 1, hb('g', M1, epoch, { subscribedTopicRegex: 'a)' }));
    expect(res3.errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
    expect(res3.errorMessage).toBe(invalidMessage('a)', 'regexp/syntax: internal error'));

    expect(group.groupEpoch).toBe(groupEpoch);
    expect(group.members.get(M1)).toEqual(before);
    expect(group.members.get(M1)!.subscribedTopicRegex).toBe('');
    expect(group.resolvedRegexes.size).toBe(0);

    // The member is still fine at its epoch.
    const ok = await c.send(68, 1, hb('g', M1, epoch, {}));
    expect(ok.errorCode).toBe(ErrorCode.NONE);
    expect(ok.memberEpoch).toBe(epoch);
  });

  it('a new member joining an existing group with an invalid regex: INVALID_REGULAR_EXPRESSION, not added', async () => {
    const { server, c } = await setup();
    await joined(c);
    const group = server.broker.consumer.group('g')!;
    const groupEpoch = group.groupEpoch;
    const res = await c.send(68, 1, join('g', M2, { subscribedTopicRegex: '[a' }));
    expect(res.errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
    expect(res.errorMessage).toBe(invalidMessage('[a', 'missing closing ]'));
    expect(group.members.has(M2)).toBe(false);
    expect(group.groupEpoch).toBe(groupEpoch);
  });

  it('a new group joined with an invalid regex: INVALID_REGULAR_EXPRESSION', async () => {
    const { server, c } = await setup();
    const res = await c.send(68, 1, join('fresh', M1, { subscribedTopicRegex: 'x**' }));
    expect(res.errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
    expect(res.errorMessage).toBe(invalidMessage('x**', 'invalid nested repetition operator'));
    expect(server.broker.consumer.group('fresh')?.members.size ?? 0).toBe(0);
  });

  // Kafka rolls the created group back; we check the regex before the group is created.
  it('a new group joined with an invalid regex is not created', async () => {
    const { server, c } = await setup();
    const res = await c.send(68, 1, join('fresh', M1, { subscribedTopicRegex: 'x**' }));
    expect(res.errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
    expect(server.broker.consumer.hasGroup('fresh')).toBe(false);
  });

  // Nor is a static member replaced before the check.
  it('a static member replacing a left static member with an invalid regex changes nothing', async () => {
    const { server, c } = await setup();
    const a = await c.send(68, 1, join('g', M1, { instanceId: 'i1', subscribedTopicNames: ['t'] }));
    expect(a.errorCode).toBe(ErrorCode.NONE);
    const left = await c.send(68, 1, hb('g', M1, -2, { instanceId: 'i1' }));
    expect(left.errorCode).toBe(ErrorCode.NONE);
    const res = await c.send(68, 1, join('g', M2, { instanceId: 'i1', subscribedTopicRegex: '(' }));
    expect(res.errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
    const group = server.broker.consumer.group('g')!;
    expect(group.members.has(M2)).toBe(false);
    expect(group.members.has(M1)).toBe(true);
  });

  it('a regex another member already subscribes to is taken without a new validation; switching back and forth works', async () => {
    const { server, c } = await setup();
    const a = await c.send(68, 1, join('g', M1, { subscribedTopicRegex: 't.*' }));
    expect(a.errorCode).toBe(ErrorCode.NONE);
    const b = await c.send(68, 1, join('g', M2, { subscribedTopicNames: ['t'] }));
    expect(b.errorCode).toBe(ErrorCode.NONE);
    const b2 = await c.send(68, 1, hb('g', M2, b.memberEpoch, { subscribedTopicRegex: 't.*' }));
    expect(b2.errorCode).toBe(ErrorCode.NONE);
    const group = server.broker.consumer.group('g')!;
    expect(group.members.get(M2)!.subscribedTopicRegex).toBe('t.*');
    expect(group.members.get(M1)!.subscribedTopicRegex).toBe('t.*');
  });
});
