import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';
import { FaultRuleError, FaultRuleGone, FaultWaitTimeout, normalizeRule, type FaultRuleSpec } from '../../src/faults/index.js';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const running: Array<{ server: Server; clients: RawClient[] }> = [];
afterEach(async () => {
  for (const { server, clients } of running.splice(0)) {
    for (const c of clients) c.close();
    await server.stop();
  }
});

async function start(options: Parameters<typeof startTestServer>[0] = {}) {
  const server = await startTestServer(options);
  const client = await RawClient.connect(server.port);
  const ctx = { server, clients: [client] };
  running.push(ctx);
  const created = await client.send(19, 4, { ...defaultCreateTopicsRequest(), topics: [{ ...defaultCreatableTopic(), name: 't', numPartitions: 3, replicationFactor: 1 }], timeoutMs: 5000 });
  expect(created.topics[0]!.errorCode).toBe(ErrorCode.NONE);
  const connect = async () => {
    const c = await RawClient.connect(server.port);
    ctx.clients.push(c);
    return c;
  };
  return { server, client, connect };
}

function commitRequest(groupId: string, offsets: Array<[number, bigint]>) {
  return {
    ...defaultOffsetCommitRequest(),
    groupId,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    retentionTimeMs: -1n,
    topics: [{ name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: offsets.map(([partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: '' })) }],
  };
}

const errorsOf = (res: { topics: Array<{ partitions: Array<{ partitionIndex: number; errorCode: number }> }> }) =>
  Object.fromEntries(res.topics.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode])));

async function committed(client: RawClient, groupId: string): Promise<Record<number, bigint>> {
  const res = await client.send(9, 5, { groupId, topics: [{ name: 't', partitionIndexes: [0, 1, 2] }], groups: [], requireStable: false });
  return Object.fromEntries(res.topics[0]!.partitions.map((p) => [p.partitionIndex, p.committedOffset]));
}

describe('fault rules', () => {
  it('validates rules and names the problem', () => {
    expect(() => normalizeRule({ action: { type: 'error', error: 'NOPE' } })).toThrow(/unknown error "NOPE"/);
    expect(() => normalizeRule({ match: { api: 'Nope' }, action: { type: 'error', error: 1 } })).toThrow(FaultRuleError);
    expect(() => normalizeRule({ match: { api: 999 }, action: { type: 'delay', ms: 1 } })).toThrow('unknown api key 999: no Kafka API has it, so a rule on it would never fire');
    expect(normalizeRule({ match: { api: 8 }, action: { type: 'delay', ms: 1 } }).match).toMatchObject({ apiKey: 8, api: 'OffsetCommit' });
    expect(() => normalizeRule({ match: { grp: 'x' }, action: { type: 'delay', ms: 1 } })).toThrow(/unknown field "grp"/);
    // An empty id names nothing in any request: refused, not accepted to never fire.
    expect(() => normalizeRule({ match: { group: '' }, action: { type: 'delay', ms: 1 } })).toThrow(
      'match.group must not be empty: an empty id names nothing, so the rule would never fire (leave match.group out to match any request)',
    );
    expect(() => normalizeRule({ match: { transactionalId: '' }, action: { type: 'delay', ms: 1 } })).toThrow(/match.transactionalId must not be empty/);
    expect(normalizeRule({ match: { clientId: '' }, action: { type: 'delay', ms: 1 } }).match.clientId).toBe(''); // a client may send an empty client id
    expect(() => normalizeRule({ action: { type: 'close', when: 'later' } })).toThrow(/before/);
    // `partition` is part of the typed spec too (nu18: the type had only `partitions`).
    const spec: FaultRuleSpec = { match: { api: 'offsetcommit', partition: 1 }, action: { type: 'errors', errors: ['REBALANCE_IN_PROGRESS', 25] } };
    const rule = normalizeRule(spec);
    expect(rule.match).toMatchObject({ api: 'OffsetCommit', apiKey: 8, partitions: [1], nth: 1 });
    expect(rule.action).toEqual({ type: 'errors', errors: ['REBALANCE_IN_PROGRESS', 'UNKNOWN_MEMBER_ID'], errorCodes: [27, 25] });
    expect(rule.times).toBe(2);
    expect(normalizeRule({ action: { type: 'delay', ms: 5 }, durationMs: 100 }).times).toBeNull();
  });

  it('refuses error NONE (an answer without handling) in-process, over HTTP (400) and from KMC_FAULTS (exit 2), naming the field', async () => {
    const none = /action\.error cannot be NONE \(0\): an error action answers without handling the request; to let requests through use no rule, or a "delay" action/;
    expect(() => normalizeRule({ action: { type: 'error', error: 'none' } })).toThrow(none);
    expect(() => normalizeRule({ action: { type: 'error', error: 0 } })).toThrow(none);
    expect(() => normalizeRule({ action: { type: 'errors', errors: ['NOT_COORDINATOR', '0'] } })).toThrow(/action\.errors\[1\] cannot be NONE/);
    const { server } = await start({ adminPort: 0, adminHost: '127.0.0.1' });
    expect(() => server.faults.add({ match: { api: 'Produce' }, action: { type: 'error', error: 'NONE' } })).toThrow(FaultRuleError);
    const res = await fetch(`${server.admin!.url}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ match: { api: 'Produce' }, action: { type: 'error', error: 'NONE' } }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(none);
    expect(server.faults.list()).toEqual([]);
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const env = { ...process.env, KMC_FAULTS: '{"match":{"api":"Produce"},"action":{"type":"error","error":"NONE"}}' };
    const exited = spawnSync(process.execPath, [cli, '--in-memory', '--port', '0', '--no-admin'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(exited.status).toBe(2);
    expect(exited.stderr).toMatch(none);
  });

  it('fails only partition 1 of 3 of an OffsetCommit; the others commit', async () => {
    const { server, client } = await start();
    const rule = server.faults.add({ match: { api: 'OffsetCommit', group: 'g', topic: 't', partitions: [1] }, action: { type: 'error', error: 'UNKNOWN_MEMBER_ID' } });
    const res = await client.send(8, 8, commitRequest('g', [[0, 10n], [1, 11n], [2, 12n]]));
    expect(errorsOf(res)).toEqual({ 0: ErrorCode.NONE, 1: ErrorCode.UNKNOWN_MEMBER_ID, 2: ErrorCode.NONE });
    expect(await committed(client, 'g')).toEqual({ 0: 10n, 1: -1n, 2: 12n });
    expect(rule.fired).toBe(1);
    // A request that does not name partition 1 does not match.
    const other = await client.send(8, 8, commitRequest('g', [[0, 20n]]));
    expect(errorsOf(other)).toEqual({ 0: ErrorCode.NONE });
  });

  it('fails a whole request without applying it; an error sequence goes one per request; nth skips', async () => {
    const { server, client } = await start();
    const seq = server.faults.add({ match: { api: 8, group: 'g' }, action: { type: 'errors', errors: ['REBALANCE_IN_PROGRESS', 'NOT_COORDINATOR'] } });
    expect(errorsOf(await client.send(8, 8, commitRequest('g', [[0, 1n], [1, 1n]])))).toEqual({ 0: 27, 1: 27 });
    expect(errorsOf(await client.send(8, 8, commitRequest('g', [[0, 2n]])))).toEqual({ 0: 16 });
    expect(await committed(client, 'g')).toEqual({ 0: -1n, 1: -1n, 2: -1n });
    expect(errorsOf(await client.send(8, 8, commitRequest('g', [[0, 3n]])))).toEqual({ 0: 0 });
    expect(seq.info()).toMatchObject({ fired: 2, state: 'exhausted', remaining: 0 });

    const second = server.faults.add({ match: { api: 'OffsetFetch', group: 'g', nth: 2 }, action: { type: 'error', error: 'COORDINATOR_LOAD_IN_PROGRESS' } });
    expect((await committed(client, 'g'))[0]).toBe(3n);
    const res = await client.send(9, 5, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0] }], groups: [], requireStable: false });
    expect(res.errorCode).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect(second.info()).toMatchObject({ matched: 2, fired: 1 });

    const log = server.faults.requests({ api: 'OffsetCommit', group: 'g' });
    expect(log.map((e) => [e.error, e.faults, e.handled])).toEqual([['REBALANCE_IN_PROGRESS', [seq.id], false], ['NOT_COORDINATOR', [seq.id], false], [null, [], true]]);
    expect(log[0]).toMatchObject({ api: 'OffsetCommit', apiKey: 8, version: 8, clientId: 'raw-test', group: 'g', outcome: 'response', topics: ['t'] });
  });

  it('closes the connection before (not applied) or after (applied, response lost) the request', async () => {
    const { server, client, connect } = await start();
    server.faults.add({ match: { api: 'OffsetCommit', group: 'before' }, action: { type: 'close', when: 'before' } });
    await expect(client.send(8, 8, commitRequest('before', [[0, 5n]]))).rejects.toThrow(/closed/);
    const c2 = await connect();
    expect((await committed(c2, 'before'))[0]).toBe(-1n);

    server.faults.add({ match: { api: 'OffsetCommit', group: 'after' }, action: { type: 'close', when: 'after' } });
    await expect(c2.send(8, 8, commitRequest('after', [[0, 6n]]))).rejects.toThrow(/closed/);
    const c3 = await connect();
    expect((await committed(c3, 'after'))[0]).toBe(6n);
    // Both end 'closed'; `handled` tells the one applied from the one not.
    expect(['before', 'after'].map((group) => server.faults.requests({ group, api: 'OffsetCommit' }).map((e) => [e.outcome, e.handled]))).toEqual([[['closed', false]], [['closed', true]]]);
  });

  it('hangs (no response, later requests wait) and closes after closeAfterMs; throttles; delays', async () => {
    const { server, client, connect } = await start();
    server.faults.add({ match: { api: 'Heartbeat' }, action: { type: 'hang', closeAfterMs: 300 } });
    const started = Date.now();
    await expect(client.send(12, 4, { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null })).rejects.toThrow(/closed/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);

    const c2 = await connect();
    const throttle = server.faults.add({ match: { api: 'ListGroups' }, action: { type: 'throttle', ms: 250 }, times: 'unlimited' });
    const listed = await c2.send(16, 4, { statesFilter: [], typesFilter: [] });
    expect(listed.throttleTimeMs).toBe(250);
    throttle.remove();

    server.faults.add({ match: { api: 'ListGroups' }, action: { type: 'delay', ms: 200 } });
    const t0 = Date.now();
    await c2.send(16, 4, { statesFilter: [], typesFilter: [] });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(180);
  });

  it('waitFired resolves at the count, rejects on timeout; durationMs ends a rule', async () => {
    const { server, client } = await start();
    const fetchOffsets = () => client.send(9, 5, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0] }], groups: [], requireStable: false });
    const rule = server.faults.add({ match: { api: 'OffsetFetch' }, action: { type: 'error', error: 'COORDINATOR_LOAD_IN_PROGRESS' }, times: 'unlimited' });
    await expect(rule.waitFired(1, { timeoutMs: 50 })).rejects.toThrow(FaultWaitTimeout);
    const waiting = rule.waitFired(2, { timeoutMs: Infinity });
    for (let i = 0; i < 2; i++) expect((await fetchOffsets()).errorCode).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect((await waiting).fired).toBe(2);
    expect(rule.remove()).toBe(true);

    // durationMs counts real time from the rule's creation: once it has passed, the rule no longer
    // fires (a wait that only ever makes the rule more expired: it holds on a loaded machine).
    const timed = server.faults.add({ match: { api: 'OffsetFetch' }, action: { type: 'error', error: 'COORDINATOR_LOAD_IN_PROGRESS' }, durationMs: 50 });
    await new Promise((r) => setTimeout(r, 60));
    expect((await fetchOffsets()).errorCode).toBe(ErrorCode.NONE);
    expect(timed.info().state).toBe('expired');
    expect(server.faults.list().map((r) => r.id)).toEqual([timed.id]);
    expect(server.faults.clear()).toBe(1);
  });

  it('waitFired ends as soon as the rule cannot fire the count (FaultRuleGone, HTTP 410), or when its signal aborts', async () => {
    const { server } = await startTestServer({ adminPort: 0 }).then(async (s) => {
      running.push({ server: s, clients: [] });
      return { server: s };
    });
    const match = { api: 'OffsetFetch' } as const;
    const action = { type: 'error', error: 'COORDINATOR_LOAD_IN_PROGRESS' } as const;
    const once = server.faults.add({ match, action, times: 1 });
    await expect(once.waitFired(2, { timeoutMs: Infinity })).rejects.toThrow(FaultRuleGone);
    const res = await fetch(`${server.admin!.url}/faults/${once.id}/wait`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 2, timeoutMs: 3_600_000 }) });
    expect([res.status, ((await res.json()) as { message: string }).message]).toEqual([410, `fault rule ${once.id} fires at most 1 time, not 2`]);
    // Expiring while waited for (no request comes): the wait ends then, not at its timeout.
    const brief = server.faults.add({ match, action, durationMs: 30 });
    await expect(brief.waitFired(1, { timeoutMs: Infinity })).rejects.toThrow(`fault rule ${brief.id} expired after firing 0 of 1 times`);
    await expect(brief.waitFired(1, { timeoutMs: Infinity })).rejects.toThrow(FaultRuleGone);
    const open = server.faults.add({ match, action });
    const stop = new AbortController();
    const waiting = open.waitFired(1, { timeoutMs: Infinity, signal: stop.signal });
    stop.abort(new Error('no longer needed'));
    await expect(waiting).rejects.toThrow('no longer needed');
    expect(open.remove()).toBe(true);
    await expect(open.waitFired(1)).rejects.toThrow(FaultRuleGone);
  });

  it('durationMs stays on real time under the manual clock: advancing the clock does not end a rule', async () => {
    // A rule's lifetime is a wall-clock budget (the README's fault design note): a suite on the
    // manual clock for retention or session timeouts must not find its 2 s "loading" rule lasting
    // until someone advances the clock. Deterministic ends are `times` and `remove()`.
    const { server, client } = await start({ clock: 'manual' });
    const timed = server.faults.add({ match: { api: 'OffsetFetch' }, action: { type: 'error', error: 'COORDINATOR_LOAD_IN_PROGRESS' }, durationMs: 60_000 });
    server.clock.advance(300_000); // below connections.max.idle.ms, which the manual clock drives
    const res = await client.send(9, 5, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0] }], groups: [], requireStable: false });
    expect(res.errorCode).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect(timed.info().state).toBe('active');
    expect(Date.parse(timed.info().expiresAt!) - Date.parse(timed.info().createdAt)).toBe(60_000);
    expect(timed.remove()).toBe(true);
  });

  it('fails OffsetFetch v8+ per group, and partitions within a group', async () => {
    const { server, client } = await start();
    await client.send(8, 8, commitRequest('a', [[0, 1n], [1, 2n]]));
    await client.send(8, 8, commitRequest('b', [[0, 3n]]));
    server.faults.add({ match: { api: 'OffsetFetch', group: 'a', partitions: [1] }, action: { type: 'error', error: 'UNSTABLE_OFFSET_COMMIT' } });
    const res = await client.send(9, 8, {
      groupId: '',
      topics: null,
      requireStable: true,
      groups: [
        { groupId: 'a', memberId: null, memberEpoch: -1, topics: [{ name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionIndexes: [0, 1] }] },
        { groupId: 'b', memberId: null, memberEpoch: -1, topics: [{ name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionIndexes: [0] }] },
      ],
    });
    const view = res.groups.map((g) => [g.groupId, g.errorCode, g.topics[0]!.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode])]);
    expect(view).toEqual([
      ['a', 0, [[0, 1n, 0], [1, -1n, ErrorCode.UNSTABLE_OFFSET_COMMIT]]],
      ['b', 0, [[0, 3n, 0]]],
    ]);
  });
});
