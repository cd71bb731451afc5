import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FaultRuleError } from '../../src/faults/index.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';

/** Limits and lifetimes of the control surfaces, found by adversarial testing. */
describe('control surface limits', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ adminPort: 0, clock: 'manual' });
  });
  afterAll(async () => server.stop());

  const post = (path: string, body: unknown) =>
    fetch(`${server.admin!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('refuses timer values a Node.js timer cannot hold, before adding anything', async () => {
    expect(() => server.faults.add({ match: { api: 'Metadata' }, action: { type: 'delay', ms: 1e16 } })).toThrow(FaultRuleError);
    const res = await post('/faults', { id: 'too-long', match: { api: 'Metadata' }, action: { type: 'delay', ms: 1 }, durationMs: 1e16 });
    expect(res.status).toBe(400);
    expect(server.faults.list().map((r) => r.id)).not.toContain('too-long');
    expect((await post('/cluster/coordinator-load', { groupId: 'g', durationMs: 1e16 })).status).toBe(400);
  });

  it('refuses a number JSON cannot hold exactly (1e400, 99999999999999999999) naming the field and the number as sent, never null', async () => {
    // Raw bodies: JSON.stringify would write these numbers as null and 100000000000000000000.
    const refused = async (path: string, body: string) => {
      const res = await fetch(`${server.admin!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(400);
      return ((await res.json()) as { message: string }).message;
    };
    const beyond = '(no field takes a number beyond ±9007199254740991, the most a JSON number holds exactly)';
    const before = server.faults.list().length;
    expect(await refused('/faults', '{"match":{"api":"Metadata"},"action":{"type":"delay","ms":1e400}}')).toBe(`action.ms is out of range: 1e400 ${beyond}`);
    expect(await refused('/faults', '{"match":{"api":"Metadata"},"action":{"type":"delay","ms":1},"times":99999999999999999999}')).toBe(`times is out of range: 99999999999999999999 ${beyond}`);
    expect(await refused('/faults', '{"match":{"api":"OffsetCommit","partitions":[0,-1e400]},"action":{"type":"delay","ms":1}}')).toBe(`match.partitions[1] is out of range: -1e400 ${beyond}`);
    // Fields whose refusals named no field, or said null, before.
    expect(await refused('/faults', '{"match":{"api":99999999999999999999},"action":{"type":"delay","ms":1}}')).toBe(`match.api is out of range: 99999999999999999999 ${beyond}`);
    expect(await refused('/faults', '{"match":{"api":"Metadata"},"action":{"type":"errors","errors":["NOT_COORDINATOR",1e400]}}')).toBe(`action.errors[1] is out of range: 1e400 ${beyond}`);
    expect(await refused('/faults', '{"match":{"api":"Metadata"},"action":{"type":1e400}}')).toBe(`action.type is out of range: 1e400 ${beyond}`);
    expect(server.faults.list()).toHaveLength(before);
    // Every JSON body of the admin API: the clock's too.
    expect(await refused('/clock/advance', '{"ms":1e400}')).toBe(`ms is out of range: 1e400 ${beyond}`);
    // Nested deeper than any body of the API (adversarial trial 17: 500,000 levels cost ~0.3 s of the
    // event loop each): refused before it is parsed; 64 levels are parsed (and refused as a rule).
    const nested = (levels: number) => `{"match":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    expect(await refused('/faults', nested(120_000))).toBe('the body nests arrays and objects more than 64 deep');
    expect(await refused('/faults', nested(65))).toBe('the body nests arrays and objects more than 64 deep');
    expect(await refused('/faults', nested(64))).not.toMatch(/nests/);
    // A body over 256 KiB is refused as it arrives (413), whatever it holds: a flat 1 MiB one cost
    // 57-220 ms of the event loop to parse and check.
    const big = await fetch(`${server.admin!.url}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `[${'1,'.repeat(131_072)}1]` });
    expect(big.status).toBe(413);
    // In process, a number no JSON gave: the validator says what it is, not null.
    expect(() => server.faults.add({ match: { api: 'Metadata' }, action: { type: Infinity } } as never)).toThrow(
      "action.type must be one of error, errors, delay, hang, close, throttle; got Infinity (a number beyond a double's range)",
    );
  });

  it('takes integer fields of JSON bodies as JSON numbers only: a string of digits is a 400 naming the field', async () => {
    const refused = async (path: string, body: unknown, field: string) => {
      const res = await post(path, body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(new RegExp(`^${field.replace('.', '\\.')} must be an integer from \\d+ to \\d+.*, got "`));
    };
    const before = server.clock.now();
    await refused('/clock/advance', { ms: '100' }, 'ms');
    await refused('/clock/advance', { ms: '' }, 'ms');
    expect(server.clock.now()).toBe(before);
    const rules = server.faults.list().length;
    await refused('/faults', { match: { api: 'Metadata' }, action: { type: 'delay', ms: '5' } }, 'action.ms');
    await refused('/faults', { match: { api: 'Metadata' }, action: { type: 'error', error: 3 }, times: '3' }, 'times');
    await refused('/faults', { match: { api: 'Metadata', nth: '2' }, action: { type: 'error', error: 3 } }, 'match.nth');
    expect(() => server.faults.add({ match: { api: 'Metadata' }, action: { type: 'error', error: 3 }, durationMs: '100' as unknown as number })).toThrow('durationMs must be an integer');
    expect(server.faults.list()).toHaveLength(rules);
    const rule = server.faults.add({ match: { api: 'Metadata', clientId: 'strict' }, action: { type: 'error', error: 3 } });
    await refused(`/faults/${rule.id}/wait`, { count: '1' }, 'count');
    rule.remove();
    await refused('/cluster/coordinator-load', { groupId: 'g', durationMs: '100' }, 'durationMs');
    // Query parameters are strings by nature: digits are the integer.
    expect((await fetch(`${server.admin!.url}/requests?limit=5`)).status).toBe(200);
    expect((await fetch(`${server.admin!.url}/requests?limit=5x`)).status).toBe(400);
  });

  it('names a bad /requests query parameter and what it takes, never "a JSON number" (adversarial trial 12)', async () => {
    const refused = async (query: string) => {
      const res = await fetch(`${server.admin!.url}/requests?${query}`);
      expect(res.status).toBe(400);
      return ((await res.json()) as { message: string }).message;
    };
    expect(await refused('limit=99999999999')).toBe('limit (a query parameter) must be an integer from 1 to 2147483647 in digits, got "99999999999"');
    expect(await refused('limit=0')).toBe('limit (a query parameter) must be an integer from 1 to 2147483647 in digits, got "0"');
    expect(await refused('limit=5x')).toBe('limit (a query parameter) must be an integer from 1 to 2147483647 in digits, got "5x"');
    expect(await refused('sinceSeq=-1')).toBe('sinceSeq (a query parameter) must be an integer from 0 to 9007199254740991 in digits, got "-1"');
    expect(await refused('limit=1&limit=2')).toBe('limit (a query parameter) must be given once, got 2 values');
    expect(await refused('group=a&group=b')).toBe('group (a query parameter) must be given once, got 2 values');
    // A seq past 2^31 (a long run) is a valid bound: nothing logged is above it.
    const far = await fetch(`${server.admin!.url}/requests?sinceSeq=3000000000&limit=1`);
    expect(far.status).toBe(200);
    expect(await far.json()).toEqual({ requests: [] });
  });

  it('refuses a clock advance of more than ten years, leaving the clock where it was', async () => {
    const before = server.clock.now();
    const res = await post('/clock/advance', { ms: 8640000000000000 });
    expect(res.status).toBe(400);
    expect(server.clock.now()).toBe(before);
  });

  it('refuses an advance past the latest time a date can show (8.64e15 ms), naming the most it can still take', async () => {
    // A server of its own: this one's clock ends at the end of time.
    const late = await startTestServer({ adminPort: 0, clock: 'manual' });
    try {
      const reachable = 8.64e15 - 3_600_000;
      late.clock.advance(reachable - late.clock.now());
      const advance = (ms: number) => fetch(`${late.admin!.url}/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms }) });
      const res = await advance(3_600_001);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toBe(`ms: the clock can go up to 8640000000000000 ms since the epoch (the latest time a date can show); it is at ${reachable}, so ms can be at most 3600000`);
      expect(() => late.clock.advance(3_600_001)).toThrow(RangeError);
      const clock = await fetch(`${late.admin!.url}/clock`);
      expect(clock.status).toBe(200);
      expect(((await clock.json()) as { now: number }).now).toBe(reachable);
      expect((await advance(3_600_000)).status).toBe(200);
      expect(late.clock.now()).toBe(8.64e15);
      expect((await fetch(`${late.admin!.url}/overview`)).status).toBe(200);
    } finally {
      await late.stop();
    }
  });

  it('waitFired with an infinite timeout waits for the firing instead of timing out', async () => {
    const rule = server.faults.add({ match: { api: 'ApiVersions', clientId: 'wait-forever' }, action: { type: 'error', error: 'UNKNOWN_SERVER_ERROR' } });
    const waiting = rule.waitFired(1, { timeoutMs: Infinity });
    await new Promise((r) => setTimeout(r, 50));
    const client = await RawClient.connect(server.port);
    const res = await client.send(18, 2, { clientSoftwareName: '', clientSoftwareVersion: '' }, 'wait-forever');
    expect(res.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect((await waiting).fired).toBe(1);
    client.close();
  });

  it('closes a connection left hanging by a rule once the rule is removed', async () => {
    const rule = server.faults.add({ match: { api: 'ApiVersions', clientId: 'hung' }, action: { type: 'hang' }, times: 'unlimited' });
    const client = await RawClient.connect(server.port);
    const pending = client.send(18, 2, { clientSoftwareName: '', clientSoftwareVersion: '' }, 'hung').catch((err: Error) => err);
    await rule.waitFired(1, { timeoutMs: Infinity }); // an event, not a time: the test's own timeout catches a hang
    expect(rule.remove()).toBe(true);
    await client.waitClosed();
    expect(await pending).toBeInstanceOf(Error);
  });

  it('serves GET /groups/{id} for a group id far longer than 100 characters', async () => {
    const client = await RawClient.connect(server.port);
    await client.send(19, 4, { ...defaultCreateTopicsRequest(), timeoutMs: 5000, topics: [{ ...defaultCreatableTopic(), name: 'long-ids', numPartitions: 1, replicationFactor: 1 }] });
    const groupId = `grp-${'x'.repeat(500)}`;
    const commit = await client.send(8, 8, {
      ...defaultOffsetCommitRequest(), groupId, generationIdOrMemberEpoch: -1,
      topics: [{ name: 'long-ids', topicId: '', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    expect(commit.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    client.close();
    const res = await fetch(`${server.admin!.url}/groups/${encodeURIComponent(groupId)}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { groupId: string }).groupId).toBe(groupId);
  });
});
