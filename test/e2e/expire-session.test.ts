/**
 * Expiring one member's session now (`expireMemberSession`, `POST /group/expire-session`, the
 * command line's `expire-session`): the member is treated as if it stopped heartbeating for its
 * session timeout, and only it (a clock advance past the timeout expires every member). Raw
 * members, so each step's answer is known: a classic member removed and its group rebalancing,
 * a KIP-848 member fenced, each answered UNKNOWN_MEMBER_ID at its next heartbeat.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { createTopic } from '../support/raw-transactions.js';
import { KIP848_CONFIG, hb } from '../support/kip848-group.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Writer } from '../../src/protocol/primitives.js';
import * as Sub from '../../src/records/schemas/ConsumerProtocolSubscription.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const run = promisify(execFile);
const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function post(base: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A classic member on its own connection: JoinGroup v9 (session timeout 30 s), SyncGroup v5, Heartbeat v4. */
async function classicMember(port: number, groupId: string, topic: string) {
  const raw = await RawClient.connect(port);
  cleanups.push(() => void raw.socket.destroy());
  const meta = new Writer();
  meta.int16(0);
  Sub.encode(meta, 0, { topics: [topic], userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  const subscription = meta.finish();
  let memberId = '';
  let generationId = -1;
  return {
    get memberId() {
      return memberId;
    },
    join: async () => {
      const send = (id: string) => raw.send(11, 9, {
        groupId, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 30000, memberId: id, groupInstanceId: null, protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: subscription }], reason: null,
      });
      let answer = await send(memberId);
      if (answer.errorCode === ErrorCode.MEMBER_ID_REQUIRED) answer = await send(answer.memberId);
      expect(answer.errorCode).toBe(ErrorCode.NONE);
      memberId = answer.memberId;
      generationId = answer.generationId;
      return generationId;
    },
    sync: async () => (await raw.send(14, 5, { groupId, generationId, memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] })).errorCode,
    heartbeat: async () => (await raw.send(12, 4, { groupId, generationId, memberId, groupInstanceId: null })).errorCode,
  };
}

describe("expiring one member's session", () => {
  it('classic: the member is removed and the group rebalances; the other keeps its session; HTTP and the command line', async () => {
    const server = await startTestServer({ adminPort: 0, config: { 'group.initial.rebalance.delay.ms': 0 } });
    cleanups.push(() => server.stop());
    const admin = await RawClient.connect(server.port);
    cleanups.push(() => void admin.socket.destroy());
    await createTopic(admin, 'expire-topic', 2);
    const G = 'expire-classic';
    const a = await classicMember(server.port, G, 'expire-topic');
    const b = await classicMember(server.port, G, 'expire-topic');
    expect(await a.join()).toBe(1);
    expect(await a.sync()).toBe(ErrorCode.NONE);
    // b joins: a learns of the rebalance from its heartbeat and rejoins; generation 2 holds both.
    const bJoined = b.join();
    await expect.poll(() => a.heartbeat()).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(await a.join()).toBe(2);
    expect(await bJoined).toBe(2);
    expect([await a.sync(), await b.sync()]).toEqual([ErrorCode.NONE, ErrorCode.NONE]);

    const base = server.admin!.url;
    expect(await post(base, '/group/expire-session', { groupId: G, memberId: a.memberId })).toEqual({ status: 200, body: { groupId: G, memberId: a.memberId, groupType: 'classic' } });
    // Its operation runs behind the requests already read: the group is rebalancing without a.
    await expect.poll(() => server.broker.classic.existingGroup(G)?.state).toBe('PreparingRebalance');
    expect(server.broker.classic.existingGroup(G)!.allMembers().map((m) => m.memberId)).toEqual([b.memberId]);
    expect(await a.heartbeat()).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(await b.heartbeat()).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(await b.join()).toBe(3);

    // No session any more: 404; a missing field: 400.
    expect(await post(base, '/group/expire-session', { groupId: G, memberId: a.memberId })).toMatchObject({ status: 404, body: { message: `no session of member "${a.memberId}" in group "${G}"` } });
    expect(await post(base, '/group/expire-session', { groupId: G })).toMatchObject({ status: 400, body: { message: 'memberId (a non-empty string) is required' } });
    // The command line: b's session, the same way.
    const { stdout } = await run(process.execPath, [CLI, 'expire-session', '--admin', base, '--group', G, '--member-id', b.memberId]);
    expect(JSON.parse(stdout)).toEqual({ groupId: G, memberId: b.memberId, groupType: 'classic' });
    await expect.poll(() => server.broker.classic.existingGroup(G)?.allMembers().length).toBe(0);
  });

  it('KIP-848: the member is fenced, the other keeps its epoch; in-process', async () => {
    const server = await startTestServer({ config: KIP848_CONFIG });
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => void raw.socket.destroy());
    await createTopic(raw, 'expire-848', 2);
    const G = 'expire-848-group';
    const join = (memberId: string) => raw.send(68, 1, hb(G, memberId, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['expire-848'], topicPartitions: [] }));
    const first = await join('expire-a');
    const second = await join('expire-b');
    expect([first.errorCode, second.errorCode]).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    expect(server.expireMemberSession(G, 'expire-a')).toBe('consumer');
    await expect.poll(() => [...(server.broker.consumer.group(G)?.members.keys() ?? [])]).toEqual(['expire-b']);
    expect((await raw.send(68, 1, hb(G, 'expire-a', first.memberEpoch))).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(server.expireMemberSession(G, 'expire-a')).toBe(null);
    expect(server.expireMemberSession('no-such-group', 'expire-b')).toBe(null);
  });
});
