/**
 * A fault's error with a `message`: carried wherever the answer has a message for that error, as a
 * broker's reason would be (new-user trial with Kafka Connect, session 33: a POLICY_VIOLATION rule
 * reached Connect as `PolicyViolationException: ` with nothing after it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FaultRuleError } from '../../src/faults/validate.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("a fault error's message", () => {
  it('is set on the entries answering the error (CreateTopics topics, DescribeGroups groups), absent where the answer has no message', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    const message = 'Topic names must start with team. (policy)';
    server.faults.add({ match: { api: 'CreateTopics', topic: 'bad-name' }, action: { type: 'error', error: 'POLICY_VIOLATION', message }, times: 'unlimited' });
    const create = (name: string) => raw.send(19, 7, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect((await create('bad-name')).topics.map((t) => [t.name, t.errorCode, t.errorMessage])).toEqual([['bad-name', ErrorCode.POLICY_VIOLATION, message]]);
    expect((await create('team.ok')).topics.map((t) => [t.name, t.errorCode, t.errorMessage])).toEqual([['team.ok', ErrorCode.NONE, null]]);

    server.faults.add({ match: { api: 'DescribeGroups' }, action: { type: 'error', error: 'COORDINATOR_LOAD_IN_PROGRESS', message: 'loading' } });
    const described = await raw.send(15, 6, { groups: ['g1', 'g2'], includeAuthorizedOperations: false });
    expect(described.groups.map((g) => [g.groupId, g.errorCode, g.errorMessage])).toEqual([
      ['g1', ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, 'loading'],
      ['g2', ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, 'loading'],
    ]);

    // Heartbeat has no message: the error alone.
    server.faults.add({ match: { api: 'Heartbeat' }, action: { type: 'error', error: 'REBALANCE_IN_PROGRESS', message: 'unused' } });
    expect(await raw.send(12, 4, { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null })).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.REBALANCE_IN_PROGRESS });
    // Listed with the rule.
    expect(server.faults.list().map((r) => r.action)).toContainEqual({ type: 'error', error: 'POLICY_VIOLATION', errorCode: ErrorCode.POLICY_VIOLATION, message });
  });

  it('is a string of at most 10,000 characters', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const add = (message: unknown) => () => server.faults.add({ match: { api: 'Heartbeat' }, action: { type: 'error', error: 'NOT_COORDINATOR', message } as never });
    expect(add(42)).toThrow(FaultRuleError);
    expect(add('m'.repeat(10_001))).toThrow(FaultRuleError);
    expect(add('m'.repeat(10_000))).not.toThrow();
  });
});
